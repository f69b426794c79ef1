"""Classification metrics: ``Binary*``, ``Multiclass*`` and ``Multilabel*`` classes and the task wrappers."""
from .accuracy import *  # noqa: F401,F403
from .auroc import *  # noqa: F401,F403
from .average_precision import *  # noqa: F401,F403
from .calibration_error import *  # noqa: F401,F403
from .cohen_kappa import *  # noqa: F401,F403
from .confusion_matrix import *  # noqa: F401,F403
from .f_beta import *  # noqa: F401,F403
from .hamming import *  # noqa: F401,F403
from .jaccard import *  # noqa: F401,F403
from .matthews_corrcoef import *  # noqa: F401,F403
from .precision_recall import *  # noqa: F401,F403
from .precision_recall_curve import *  # noqa: F401,F403
from .roc import *  # noqa: F401,F403
from .specificity import *  # noqa: F401,F403
from .stat_scores import *  # noqa: F401,F403

from ..utilities.exports import submodule_exports

__all__ = submodule_exports(__name__)  # each file's own __all__, never repeated here
