"""Prints what a launcher gave this process: ``ARGS <argv> RANK LOCAL_RANK WORLD_SIZE MASTER_ADDR MASTER_PORT RUN_ID``."""
import os
import sys

print("ARGS", sys.argv[1:], *(os.environ.get(k) for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR",
                                                          "MASTER_PORT", "TORCHELASTIC_RUN_ID")), flush=True)
