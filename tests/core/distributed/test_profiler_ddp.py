"""Under DDP every rank profiles itself and writes its own report, ``<stage>-<filename>-<local_rank>.txt``."""
import os

from dist_testing import SCRIPTS, finish, start


def test_each_rank_writes_its_own_profiler_report(tmp_path):
    code, out, err = finish(start([os.path.join(SCRIPTS, "profiler_ddp.py"), str(tmp_path)], "plain", 2))
    assert code == 0, f"the 2-rank job failed:\n{out}\n{err}"
    assert sorted(os.listdir(tmp_path)) == ["fit-perf-0.txt", "fit-perf-1.txt"]
    for rank in (0, 1):
        report = (tmp_path / f"fit-perf-{rank}.txt").read_text()
        assert report.startswith("FIT Profiler Report")
        # 64 samples over 2 ranks in batches of 8: 4 training steps on each rank
        (row,) = [line for line in report.splitlines() if "[Strategy]DDPStrategy.training_step" in line]
        assert [c.strip() for c in row.split("|")[1:-1]][2] == "4"
