"""Functional regression metrics."""
from .cosine_similarity import cosine_similarity
from .explained_variance import explained_variance
from .kl_divergence import kl_divergence
from .mae import mean_absolute_error
from .mape import mean_absolute_percentage_error
from .mse import mean_squared_error
from .msle import mean_squared_log_error
from .pearson import pearson_corrcoef
from .r2 import r2_score
from .smape import symmetric_mean_absolute_percentage_error
from .spearman import spearman_corrcoef

__all__ = ["cosine_similarity", "explained_variance", "kl_divergence", "mean_absolute_error",
           "mean_absolute_percentage_error", "mean_squared_error", "mean_squared_log_error", "pearson_corrcoef",
           "r2_score", "symmetric_mean_absolute_percentage_error", "spearman_corrcoef"]
