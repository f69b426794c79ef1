"""Functional classification metrics (``ember.metrics.functional``): one function per task and a task dispatcher."""
from .accuracy import accuracy, binary_accuracy, multiclass_accuracy, multilabel_accuracy
from .auroc import auroc, binary_auroc, multiclass_auroc, multilabel_auroc
from .average_precision import (average_precision, binary_average_precision, multiclass_average_precision,
                                multilabel_average_precision)
from .calibration_error import binary_calibration_error, calibration_error, multiclass_calibration_error
from .cohen_kappa import binary_cohen_kappa, cohen_kappa, multiclass_cohen_kappa
from .confusion_matrix import (binary_confusion_matrix, confusion_matrix, multiclass_confusion_matrix,
                               multilabel_confusion_matrix)
from .f_beta import (binary_f1_score, binary_fbeta_score, f1_score, fbeta_score, multiclass_f1_score,
                     multiclass_fbeta_score, multilabel_f1_score, multilabel_fbeta_score)
from .hamming import (binary_hamming_distance, hamming_distance, multiclass_hamming_distance,
                      multilabel_hamming_distance)
from .jaccard import binary_jaccard_index, jaccard_index, multiclass_jaccard_index, multilabel_jaccard_index
from .matthews_corrcoef import (binary_matthews_corrcoef, matthews_corrcoef, multiclass_matthews_corrcoef,
                                multilabel_matthews_corrcoef)
from .precision_recall import (binary_precision, binary_recall, multiclass_precision, multiclass_recall,
                               multilabel_precision, multilabel_recall, precision, recall)
from .precision_recall_curve import (binary_precision_recall_curve, multiclass_precision_recall_curve,
                                     multilabel_precision_recall_curve, precision_recall_curve)
from .roc import binary_roc, multiclass_roc, multilabel_roc, roc
from .specificity import binary_specificity, multiclass_specificity, multilabel_specificity, specificity
from .stat_scores import binary_stat_scores, multiclass_stat_scores, multilabel_stat_scores, stat_scores

__all__ = [
    "accuracy", "binary_accuracy", "multiclass_accuracy", "multilabel_accuracy",
    "auroc", "binary_auroc", "multiclass_auroc", "multilabel_auroc",
    "average_precision", "binary_average_precision", "multiclass_average_precision", "multilabel_average_precision",
    "calibration_error", "binary_calibration_error", "multiclass_calibration_error",
    "cohen_kappa", "binary_cohen_kappa", "multiclass_cohen_kappa",
    "confusion_matrix", "binary_confusion_matrix", "multiclass_confusion_matrix", "multilabel_confusion_matrix",
    "fbeta_score", "f1_score", "binary_fbeta_score", "multiclass_fbeta_score", "multilabel_fbeta_score",
    "binary_f1_score", "multiclass_f1_score", "multilabel_f1_score",
    "hamming_distance", "binary_hamming_distance", "multiclass_hamming_distance", "multilabel_hamming_distance",
    "jaccard_index", "binary_jaccard_index", "multiclass_jaccard_index", "multilabel_jaccard_index",
    "matthews_corrcoef", "binary_matthews_corrcoef", "multiclass_matthews_corrcoef", "multilabel_matthews_corrcoef",
    "precision", "recall", "binary_precision", "multiclass_precision", "multilabel_precision", "binary_recall",
    "multiclass_recall", "multilabel_recall",
    "precision_recall_curve", "binary_precision_recall_curve", "multiclass_precision_recall_curve",
    "multilabel_precision_recall_curve",
    "roc", "binary_roc", "multiclass_roc", "multilabel_roc",
    "specificity", "binary_specificity", "multiclass_specificity", "multilabel_specificity",
    "stat_scores", "binary_stat_scores", "multiclass_stat_scores", "multilabel_stat_scores",
]
