"""Signals during a run: SIGTERM stops training at a safe point; SLURM's requeue signal saves and requeues.

Cluster schedulers (SLURM, Kubernetes, ...) send SIGTERM some time before they kill a job. As in Lightning, the
Trainer does not die on it: the handler only notes it, and at the next safe point (the end of a training batch, when
the weights, optimizer and loop counters agree) the loop raises :class:`SIGTERMException`. That runs the usual
exception path (``on_exception`` hooks, so ``OnExceptionCheckpoint`` and ``ModelCheckpoint(save_on_exception=True)``
write a checkpoint, then teardown) and the process exits with status 143 (128 + SIGTERM), so the scheduler sees a
failure and the run can be resumed with ``ckpt_path="last"``. Under DDP the ranks agree at every safe point on
whether any of them was signalled, so all stop at the same batch. Processes the Trainer launched itself get the
signal forwarded.

With ``Trainer(plugins=[SLURMEnvironment(auto_requeue=True)])`` under SLURM, the requeue signal (``SIGUSR1`` by
default, set with ``#SBATCH --signal=SIGUSR1@90``) makes the Trainer save ``hpc_ckpt_<N>.ckpt`` in its
``default_root_dir`` at the next safe point and call ``scontrol requeue $SLURM_JOB_ID``.
"""
from __future__ import annotations

import logging
import os
import re
import signal
import subprocess
import threading
from typing import Any, Dict, Optional

__all__ = ["SignalConnector", "SIGTERMException", "SLURMEnvironment"]

log = logging.getLogger(__name__)


class SIGTERMException(SystemExit):
    """Raised by the training loop at a safe point after the process received SIGTERM.

    It is a ``SystemExit`` with code 143 (128 + SIGTERM), so an uncaught one ends the process with the status a
    scheduler expects from a terminated job; ``Callback.on_exception`` sees it first (``OnExceptionCheckpoint`` saves).
    """

    def __init__(self) -> None:
        super().__init__(128 + signal.SIGTERM)


class SLURMEnvironment:
    """Lightning's SLURM cluster plugin, for ``Trainer(plugins=[SLURMEnvironment(...)])``.

    ember reads the process layout of an ``srun`` launch by itself; the plugin's role is automatic requeueing.

    Args:
        auto_requeue: on ``requeue_signal``, save a checkpoint and requeue the job with ``scontrol requeue``.
        requeue_signal: the signal SLURM sends before the time limit (``#SBATCH --signal=SIGUSR1@90``).
            Default: ``signal.SIGUSR1``.
    """

    def __init__(self, auto_requeue: bool = True, requeue_signal: Optional[signal.Signals] = None) -> None:
        self.auto_requeue = bool(auto_requeue)
        self.requeue_signal = signal.Signals(requeue_signal if requeue_signal is not None else signal.SIGUSR1)

    @staticmethod
    def detect() -> bool:
        """True when this process runs inside a SLURM job."""
        return "SLURM_JOB_ID" in os.environ

    def __repr__(self) -> str:
        return f"SLURMEnvironment(auto_requeue={self.auto_requeue}, requeue_signal={self.requeue_signal!r})"


class SignalConnector:
    """Installs the run's signal handlers and turns the signals into actions at safe points."""

    def __init__(self, trainer, slurm: Optional[SLURMEnvironment] = None) -> None:
        self.trainer = trainer
        self.slurm = slurm
        self.received_sigterm = False
        self._requeue_requested = False
        self._original: Dict[int, Any] = {}

    # ------------------------------------------------------------------------------------------------ handlers
    def register(self) -> None:
        """Install the handlers for the run (main thread only; the previous ones are chained and restored)."""
        self.received_sigterm = False
        self._requeue_requested = False
        if threading.current_thread() is not threading.main_thread() or os.name != "posix":
            return
        self._install(signal.SIGTERM, self._on_sigterm)
        if self.slurm is not None and self.slurm.auto_requeue:
            self._install(self.slurm.requeue_signal, self._on_requeue_signal)

    def _install(self, signum, handler) -> None:
        previous = signal.getsignal(signum)
        self._original[signum] = previous

        def chained(sig, frame):
            handler(sig, frame)
            if callable(previous):  # a handler the user (or an outer Trainer) installed keeps working
                previous(sig, frame)
        signal.signal(signum, chained)

    def teardown(self) -> None:
        """Put back the handlers that were installed before the run."""
        for signum, handler in self._original.items():
            if handler is not None:
                signal.signal(signum, handler)
        self._original = {}

    def _on_sigterm(self, signum, frame) -> None:
        log.info("Received SIGTERM: stopping at the end of the current batch")
        if not self.received_sigterm:
            self._forward(signum)
        self.received_sigterm = True

    def _on_requeue_signal(self, signum, frame) -> None:
        log.info(f"Handling auto-requeue signal: {signum}")
        self._requeue_requested = True

    def _forward(self, signum) -> None:
        """Pass the signal on to the processes this Trainer launched (Lightning's launcher does the same)."""
        launcher = getattr(self.trainer.strategy, "_launcher", None)
        for proc in getattr(launcher, "procs", ()):
            if proc.poll() is None:
                try:
                    proc.send_signal(signum)
                except OSError:
                    pass

    # ------------------------------------------------------------------------------------------------ safe points
    def at_safe_point(self) -> None:
        """Called by the training loop after each batch: requeue if asked, stop if any rank got SIGTERM (unless
        that batch ended the training epoch anyway)."""
        trainer = self.trainer
        if self._requeue_requested:
            self._requeue_requested = False
            self._save_and_requeue()
        stop = self.received_sigterm
        if trainer.strategy.world_size > 1:  # all ranks stop at the same batch, or the others hang in a collective
            stop = trainer.strategy.reduce_boolean_decision(stop, all=False)
            self.received_sigterm = stop
        if stop and not trainer.fit_loop.epoch_loop.done:
            launcher = getattr(trainer.strategy, "_launcher", None)
            if launcher is not None:  # the children stop with 143 too: that is not a worker failure to report
                launcher.parent_failed = True
            raise SIGTERMException()

    def _save_and_requeue(self) -> None:
        trainer = self.trainer
        root = trainer.default_root_dir
        taken = [int(m.group(1)) for name in (os.listdir(root) if os.path.isdir(root) else ())
                 for m in [re.fullmatch(r"hpc_ckpt_(\d+)\.ckpt", name)] if m]
        trainer.save_checkpoint(os.path.join(root, f"hpc_ckpt_{max(taken, default=0) + 1}.ckpt"))
        if not trainer.is_global_zero:
            return
        array_job = os.environ.get("SLURM_ARRAY_JOB_ID")
        job_id = f"{array_job}_{os.environ['SLURM_ARRAY_TASK_ID']}" if array_job else os.environ.get("SLURM_JOB_ID")
        if not job_id or not re.fullmatch(r"[0-9_]+", job_id):
            log.warning(f"Not requeueing: SLURM_JOB_ID={job_id!r} is not a SLURM job id")
            return
        try:
            result = subprocess.call(["scontrol", "requeue", job_id])
        except FileNotFoundError:
            log.warning("Requeuing the SLURM job failed: `scontrol` is not on PATH")
            return
        if result == 0:
            log.info(f"Requeued SLURM job: {job_id}")
        else:
            log.warning(f"Requeuing SLURM job {job_id} failed with error code {result}")
