"""Fixtures for callback tests; the shared classes live in callback_testing.py (this directory is put on sys.path
so test files can import it, as tests/trainer does with trainer_testing.py)."""
import logging
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from callback_testing import ListHandler  # noqa: E402


@pytest.fixture
def callback_log():
    """The messages logged by callbacks during the test (the trainer's loggers do not propagate to caplog)."""
    logger = logging.getLogger("ember.trainer.callbacks")
    handler = ListHandler()
    logger.addHandler(handler)
    try:
        yield handler.messages
    finally:
        logger.removeHandler(handler)
