"""Classification metrics: ``Binary*``, ``Multiclass*`` and ``Multilabel*`` classes and the task wrappers."""
from .accuracy import Accuracy, BinaryAccuracy, MulticlassAccuracy, MultilabelAccuracy
from .auroc import AUROC, BinaryAUROC, MulticlassAUROC, MultilabelAUROC
from .average_precision import (AveragePrecision, BinaryAveragePrecision, MulticlassAveragePrecision,
                                MultilabelAveragePrecision)
from .calibration_error import BinaryCalibrationError, CalibrationError, MulticlassCalibrationError
from .cohen_kappa import BinaryCohenKappa, CohenKappa, MulticlassCohenKappa
from .confusion_matrix import (BinaryConfusionMatrix, ConfusionMatrix, MulticlassConfusionMatrix,
                               MultilabelConfusionMatrix)
from .f_beta import (BinaryF1Score, BinaryFBetaScore, F1Score, FBetaScore, MulticlassF1Score, MulticlassFBetaScore,
                     MultilabelF1Score, MultilabelFBetaScore)
from .hamming import BinaryHammingDistance, HammingDistance, MulticlassHammingDistance, MultilabelHammingDistance
from .jaccard import BinaryJaccardIndex, JaccardIndex, MulticlassJaccardIndex, MultilabelJaccardIndex
from .matthews_corrcoef import (BinaryMatthewsCorrCoef, MatthewsCorrCoef, MulticlassMatthewsCorrCoef,
                                MultilabelMatthewsCorrCoef)
from .precision_recall import (BinaryPrecision, BinaryRecall, MulticlassPrecision, MulticlassRecall,
                               MultilabelPrecision, MultilabelRecall, Precision, Recall)
from .precision_recall_curve import (BinaryPrecisionRecallCurve, MulticlassPrecisionRecallCurve,
                                     MultilabelPrecisionRecallCurve, PrecisionRecallCurve)
from .roc import ROC, BinaryROC, MulticlassROC, MultilabelROC
from .specificity import BinarySpecificity, MulticlassSpecificity, MultilabelSpecificity, Specificity
from .stat_scores import BinaryStatScores, MulticlassStatScores, MultilabelStatScores, StatScores

__all__ = [
    "Accuracy", "BinaryAccuracy", "MulticlassAccuracy", "MultilabelAccuracy",
    "AUROC", "BinaryAUROC", "MulticlassAUROC", "MultilabelAUROC",
    "AveragePrecision", "BinaryAveragePrecision", "MulticlassAveragePrecision", "MultilabelAveragePrecision",
    "CalibrationError", "BinaryCalibrationError", "MulticlassCalibrationError",
    "CohenKappa", "BinaryCohenKappa", "MulticlassCohenKappa",
    "ConfusionMatrix", "BinaryConfusionMatrix", "MulticlassConfusionMatrix", "MultilabelConfusionMatrix",
    "FBetaScore", "F1Score", "BinaryFBetaScore", "MulticlassFBetaScore", "MultilabelFBetaScore", "BinaryF1Score",
    "MulticlassF1Score", "MultilabelF1Score",
    "HammingDistance", "BinaryHammingDistance", "MulticlassHammingDistance", "MultilabelHammingDistance",
    "JaccardIndex", "BinaryJaccardIndex", "MulticlassJaccardIndex", "MultilabelJaccardIndex",
    "MatthewsCorrCoef", "BinaryMatthewsCorrCoef", "MulticlassMatthewsCorrCoef", "MultilabelMatthewsCorrCoef",
    "Precision", "Recall", "BinaryPrecision", "MulticlassPrecision", "MultilabelPrecision", "BinaryRecall",
    "MulticlassRecall", "MultilabelRecall",
    "PrecisionRecallCurve", "BinaryPrecisionRecallCurve", "MulticlassPrecisionRecallCurve",
    "MultilabelPrecisionRecallCurve",
    "ROC", "BinaryROC", "MulticlassROC", "MultilabelROC",
    "Specificity", "BinarySpecificity", "MulticlassSpecificity", "MultilabelSpecificity",
    "StatScores", "BinaryStatScores", "MulticlassStatScores", "MultilabelStatScores",
]
