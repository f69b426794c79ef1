"""Regression metrics."""
from .cosine_similarity import CosineSimilarity
from .explained_variance import ExplainedVariance
from .kl_divergence import KLDivergence
from .mae import MeanAbsoluteError
from .mape import MeanAbsolutePercentageError
from .mse import MeanSquaredError
from .msle import MeanSquaredLogError
from .pearson import PearsonCorrCoef
from .r2 import R2Score
from .smape import SymmetricMeanAbsolutePercentageError
from .spearman import SpearmanCorrCoef

__all__ = ["CosineSimilarity", "ExplainedVariance", "KLDivergence", "MeanAbsoluteError",
           "MeanAbsolutePercentageError", "MeanSquaredError", "MeanSquaredLogError", "PearsonCorrCoef", "R2Score",
           "SymmetricMeanAbsolutePercentageError", "SpearmanCorrCoef"]
