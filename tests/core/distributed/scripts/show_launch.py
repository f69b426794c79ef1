"""Prints what a launcher gave this process: ``ARGS <argv> RANK LOCAL_RANK WORLD_SIZE MASTER_ADDR MASTER_PORT RUN_ID``
as one write (the workers share the launcher's pipe, so a line written in pieces could interleave)."""
import os
import sys

values = [os.environ.get(k) for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
                                      "TORCHELASTIC_RUN_ID")]
sys.stdout.write(" ".join(["ARGS", repr(sys.argv[1:])] + [str(v) for v in values]) + "\n")
sys.stdout.flush()
