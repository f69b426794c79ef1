"""``Trainer(strategy="ddp", devices=2)``: launched locally (the Trainer re-runs the script) and under
``mpiexec -n 2``, compared with the same training in one process here; resuming from the 2-rank checkpoint; and a
rank that fails at step 5 (the job exits non-zero with that rank's error and leaves no process behind)."""
import json
import os
import sys
import time
import warnings

import numpy as np
import pytest

from dist_testing import SCRIPTS, finish, mpiexec, remove_mpich_leftovers, shm_files, start

sys.path.insert(0, SCRIPTS)
import trainer_ddp  # noqa: E402
from ember.core.distributed.threads import threads_per_rank, user_set_threads  # noqa: E402

SCRIPT = os.path.join(SCRIPTS, "trainer_ddp.py")
LAUNCHES = [pytest.param("plain", id="local"),
            pytest.param("mpi", id="mpiexec", marks=pytest.mark.skipif(mpiexec() is None, reason="no mpi extra"))]
FAILURES = [pytest.param("local", 1, id="ember-run"), pytest.param("plain", 1, id="child-rank"),
            pytest.param("plain", 0, id="parent-rank"),
            pytest.param("mpi", 1, id="mpiexec", marks=pytest.mark.skipif(mpiexec() is None, reason="no mpi"))]


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    """All the jobs of this module, started together: {key: (returncode, stdout, stderr, out_dir, seconds)}."""
    root = tmp_path_factory.mktemp("trainer_ddp")
    before = shm_files()
    started = {}
    for launch in ("plain", "mpi"):
        if launch == "mpi" and mpiexec() is None:
            continue
        out = root / f"fit-{launch}"
        out.mkdir()
        job = start([SCRIPT, str(out), "--epochs", "2", "--resume-epochs", "3"], launch, 2, default_threads=False)
        started[("fit", launch)] = (job, out, time.monotonic())
    for launch, rank in (("local", 1), ("plain", 1), ("plain", 0), ("mpi", 1)):
        if launch == "mpi" and mpiexec() is None:
            continue
        out = root / f"fail-{launch}-{rank}"
        out.mkdir()
        argv = [SCRIPT, str(out), "--epochs", "3", "--fail-at", "5", "--fail-rank", str(rank)]
        started[("fail", launch, rank)] = (start(argv, launch, 2), out, time.monotonic())
    done = {}
    for key, (proc, out, t0) in started.items():
        code, stdout, stderr = finish(proc, timeout=120)
        done[key] = (code, stdout, stderr, out, time.monotonic() - t0)
    remove_mpich_leftovers(before)  # the aborted MPI job
    return done


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    """The same training in this process: 1 rank, batch 32 (= 2 ranks x 16), then resumed to 3 epochs."""
    out = tmp_path_factory.mktemp("single")
    trainer, model = trainer_ddp.run(str(out), 1, 2, 32, strategy="auto")
    first = ({k: float(v) for k, v in trainer.callback_metrics.items()}, [p.detach()._data for p in model.parameters()])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "the dirpath has changed": the resumed fit logs to version_1, as intended
        trainer2, model2 = trainer_ddp.run(str(out), 1, 3, 32, resume=trainer.checkpoint_callback.last_model_path,
                                           strategy="auto")
    second = ({k: float(v) for k, v in trainer2.callback_metrics.items()},
              [p.detach()._data for p in model2.parameters()], trainer2.global_step)
    return first, second


def results(jobs, launch):
    code, stdout, stderr, out, _ = jobs[("fit", launch)]
    assert code == 0, f"the 2-rank job failed:\n{stdout}\n{stderr}"
    return [json.load(open(out / f"rank{r}.json")) for r in range(2)], out


@pytest.mark.parametrize("launch", LAUNCHES)
def test_ddp_fit_matches_one_process(jobs, single, launch):
    ranks, _ = results(jobs, launch)
    assert [r["world_size"] for r in ranks] == [2, 2] and [r["rank"] for r in ranks] == [0, 1]
    assert ranks[0]["backend"] == ("mpi" if launch == "mpi" else "local")
    # each rank runs cores / 2 intra-op threads (from the launcher's OMP_NUM_THREADS, or set by the process group
    # through em.set_num_threads under mpiexec); the BLAS library itself stays single-threaded (core/threads.py)
    if not user_set_threads():
        assert [r["num_threads"] for r in ranks] == [threads_per_rank(2)] * 2
    if ranks[0]["blas_threads"] is not None:
        assert [r["blas_threads"] for r in ranks] == [1, 1]
    metrics, weights = single[0]
    assert set(metrics) == {"train_loss", "val_loss", "val_acc", "val_max"}
    for r in ranks:
        assert set(r["metrics"]) == set(metrics)
        for key, v in metrics.items():  # sync_dist means, a sync_dist max and the Accuracy metric
            assert r["metrics"][key] == pytest.approx(v, rel=1e-5, abs=1e-6), key
        for a, b in zip(r["weights"], weights):
            np.testing.assert_allclose(np.array(a), b, atol=1e-6)
    assert ranks[0]["weights"] == ranks[1]["weights"]


@pytest.mark.parametrize("launch", LAUNCHES)
def test_loaders_are_sharded_and_decisions_agree(jobs, launch):
    ranks, _ = results(jobs, launch)
    for r, result in enumerate(ranks):
        assert result["sampler"] == ["DistributedSampler", 1, 2, r]  # set_epoch(1) ran for the second epoch
    assert ranks[0]["best"] == ranks[1]["best"] != ""  # ModelCheckpoint's choice is rank 0's, everywhere


@pytest.mark.parametrize("launch", LAUNCHES)
def test_strategy_collectives_seen_from_the_module(jobs, launch):
    ranks, _ = results(jobs, launch)
    for r, result in enumerate(ranks):
        assert result["extras"] == {
            "all_gather": [0.0, 1.0],             # a new leading dimension of the world size
            "all_gather_grad": [2.0 * (r + 1)] * 2,  # every rank's loss uses every slice: d/dx = 2 * (r + 1)
            "reduce_mean": 0.5, "reduce_sum": 3.0, "broadcast": "from 0", "any": True, "all": False}


@pytest.mark.parametrize("launch", LAUNCHES)
def test_ddp_fit_writes_one_log_directory_and_one_set_of_checkpoints(jobs, launch):
    ranks, out = results(jobs, launch)
    runs = sorted(os.listdir(out / "lightning_logs"))
    assert runs == ["version_0", "version_1"]  # the first fit, then the resumed one: never one per rank
    assert ranks[0]["log_dir"] == ranks[1]["log_dir"] == str(out / "lightning_logs" / "version_0")
    assert sorted(os.listdir(out / "lightning_logs" / "version_0")) == ["checkpoints", "metrics.csv"]
    assert sorted(os.listdir(out / "lightning_logs" / "version_0" / "checkpoints")) == [
        "epoch=0-step=4.ckpt", "epoch=1-step=8.ckpt", "last.ckpt"]
    lines = open(out / "lightning_logs" / "version_0" / "metrics.csv").read().strip().splitlines()
    assert len(lines) == 1 + 4  # header + (val, train) rows for 2 epochs, written once (by rank 0)


@pytest.mark.parametrize("launch", LAUNCHES)
def test_two_rank_run_resumes_from_its_checkpoint(jobs, single, launch):
    ranks, out = results(jobs, launch)
    metrics, weights, global_step = single[1]
    for r in ranks:
        resumed = r["resumed"]
        assert resumed["global_step"] == global_step == 12
        for key, v in metrics.items():
            assert resumed["metrics"][key] == pytest.approx(v, rel=1e-5, abs=1e-6), key
        for a, b in zip(resumed["weights"], weights):
            np.testing.assert_allclose(np.array(a), b, atol=1e-6)
    assert sorted(os.listdir(out / "lightning_logs" / "version_1" / "checkpoints")) == [
        "epoch=2-step=12.ckpt", "last.ckpt"]


def _processes_mentioning(text):
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if text.encode() in fh.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


@pytest.mark.parametrize("launch,rank", FAILURES)
def test_a_failing_rank_fails_the_job_with_its_error(jobs, launch, rank):
    code, stdout, stderr, out, seconds = jobs[("fail", launch, rank)]
    assert code != 0
    assert seconds < 60
    assert f"ValueError: deliberate failure on rank {rank} at step 5" in stderr
    if launch == "local":  # ember-run names the rank that failed first
        assert f"ember-run: rank {rank}" in stderr and "failed first" in stderr
    if sys.platform.startswith("linux"):
        assert _processes_mentioning(str(out)) == []
    assert not os.path.exists(out / "rank0.json")
