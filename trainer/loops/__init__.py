"""The loops: fit -> training epoch -> optimization; evaluation (validate, test, sanity check); prediction.

Every loop keeps its progress in counters with a ``state_dict``, so a checkpoint can restore it exactly.
"""
