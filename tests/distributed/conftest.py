"""Puts this directory on sys.path so the test files can import ``dist_testing`` (as tests/trainer does with
trainer_testing.py)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
