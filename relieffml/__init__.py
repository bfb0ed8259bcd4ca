"""relieffml: the multi-label ReliefF family of feature weighting and selection, with the lazy learners, the
stacked classifiers, the metrics and the evaluation protocols of the papers it implements.

The front door: every estimator, the data sets, the metrics and the evaluation helpers import from here, e.g.
``from relieffml import ReliefFML, MLkNN, load_dataset, evaluate``. The names load on first use (as SciPy's
submodules do), so ``import relieffml`` stays light; the kernels stay in their modules
(``relieffml.neighbors``, ...)."""
__version__ = "0.0.1"

_HOME = {
    'data': ['MultiLabelDataset', 'load_dataset', 'list_datasets', 'load_arff', 'load_hmc_arff',
             'make_multilabel_relevance'],
    'hierarchy': ['Hierarchy'],
    'relieff': ['ReliefF'], 'rrelieff': ['RReliefF'], 'infogain': ['InfoGain'],
    'reliefml': ['ReliefFML'], 'rfml': ['RFML'], 'mlrf': ['MLRF', 'MMLRF'], 'hmc': ['HMCReliefF'],
    'transform': ['BinaryRelevanceRanker', 'LabelPowersetRanker', 'LCFS'],
    'lazy': ['MLkNN', 'BRkNN', 'DMLkNN', 'MLCWkNN'],
    'rfs': ['RFSClassifier', 'BRPlus', 'CorrelationPrunedStacking', 'DependentBinaryRelevance',
            'DeterministicLinearSVC'],
    'metrics': ['hamming_loss', 'subset_accuracy', 'accuracy', 'precision', 'recall', 'f1', 'micro_f1', 'macro_f1',
                'one_error', 'coverage', 'ranking_loss', 'average_precision', 'evaluate_all'],
    'evaluation': ['iterative_stratified_kfold', 'evaluate', 'ffa_curve', 'random_ffa_baseline', 'kuncheva_index',
                   'ranking_stability', 'wilcoxon_test', 'average_ranks', 'friedman_test', 'nemenyi_cd', 'general_b',
                   'GeneralB',
                   'plot_metric_vs_size', 'plot_ffa', 'plot_critical_difference'],
}
_MODULE_OF = {name: module for module, names in _HOME.items() for name in names}
__all__ = sorted(_MODULE_OF)


def __getattr__(name):
    "A front-door name, imported from its module on first use (PEP 562)."
    if name not in _MODULE_OF: raise AttributeError(f"module 'relieffml' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(f"relieffml.{_MODULE_OF[name]}"), name)
    globals()[name] = value
    return value


def __dir__(): return sorted(set(globals()) | set(__all__))
