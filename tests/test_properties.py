"""Properties over any finite input: the min-max scaling of `prepare` cannot overflow (and equals the naive
formula, hence Weka's, wherever that is finite), and every ranker and learner returns finite weights or
scores on any finite X - any magnitude up to ±1.8e308, constant columns, tiny N - or raises a ValueError
that says why. Example counts are bounded so the file runs in well under a minute."""
import re
import numpy as np
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st
from hypothesis.extra.numpy import arrays

from relieffml.distances import prepare
from relieffml.relieff import ReliefF
from relieffml.rrelieff import RReliefF
from relieffml.reliefml import ReliefFML
from relieffml.rfml import RFML
from relieffml.mlrf import MLRF
from relieffml.transform import BinaryRelevanceRanker, LabelPowersetRanker
from relieffml.hmc import HMCReliefF
from relieffml.hierarchy import Hierarchy
from relieffml.lazy import MLkNN, BRkNN, DMLkNN, MLCWkNN

BIG = np.finfo(np.float64).max
SPECIAL = [0.0, 1.0, -1.0, 1e308, -1e308, BIG, -BIG, 5e-324, 2.0 ** 1023, 1e-300]
FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def naive_scale(X, Xq=None):
    "(x − min)/(max − min) per column, a range under 1e-6 scaling to 0 (Weka's rule), on the training rows or `Xq`."
    V = X if Xq is None else Xq
    with np.errstate(all="ignore"):
        lo, hi = np.nanmin(X, 0), np.nanmax(X, 0)          # NaN for a column with no known value
        const = ~(hi - lo >= 1e-6)                          # Weka's norm: a NaN minimum also scales to 0
        Z = (V - lo) / np.where(const, 1.0, hi - lo)
    Z[:, const] = np.where(np.isnan(V[:, const]), np.nan, 0.0)
    return Z


# ---------------------------------------------------------------- prepare / _scale (item: no silent NaN from huge values)
@settings(max_examples=60, deadline=None)
@given(X=arrays(np.float64, st.tuples(st.integers(2, 12), st.integers(1, 4)),
                elements=st.floats(-1e150, 1e150, allow_nan=False) | st.sampled_from([0.0, 1.0, 5e-324, np.nan])),
       Xq=arrays(np.float64, (3, 4), elements=st.floats(-1e150, 1e150, allow_nan=False)))
def test_scale_equals_naive_formula_on_ordinary_data(X, Xq):
    "Where max − min and x − min are finite, the scaled values are bitwise the naive (Weka) formula's."
    p = prepare(X, np.zeros(X.shape[1], bool))
    with np.errstate(all="ignore"):
        ref, refq = naive_scale(X), naive_scale(X, Xq[:, :X.shape[1]])
    np.testing.assert_array_equal(p.Xn, ref)
    np.testing.assert_array_equal(p.apply(Xq[:, :X.shape[1]]), refq)


def test_scale_huge_by_hand():
    # column 0: min −1e308, max 1e308 (range 2e308 > float64 max); column 1: a range that fits, queried far outside
    X = np.array([[1e308, -1e308], [-1e308, 0.0], [0.0, -1e308], [5e307, -5e307]])
    with np.errstate(over="raise"):                       # no overflow anywhere on the way
        p = prepare(X, np.zeros(2, bool))
        np.testing.assert_array_equal(p.Xn, [[1.0, 0.0], [0.0, 1.0], [0.5, 0.0], [0.75, 0.5]])
        np.testing.assert_array_equal(p.apply([[-5e307, 1e308], [1e308, -1e308]]), [[0.25, 2.0], [1.0, 0.0]])
    # the largest finite values: (max − (−max)) / (2·max) in halves
    q = prepare(np.array([[BIG], [-BIG], [0.0]]), [False])
    np.testing.assert_array_equal(q.Xn[:, 0], [1.0, 0.0, 0.5])


def test_huge_column_gives_the_weights_of_its_scaled_copy():
    "ReliefF-ML on a column of ±2^1023 multiples equals ReliefF-ML on the multiples themselves (both scale to (v + 1)/2)."
    rng = np.random.default_rng(0)
    v = rng.choice([-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0], 40); v[:2] = -1.0, 1.0
    X_small = np.c_[v, rng.random(40)]
    X_huge = np.c_[v * 2.0 ** 1023, X_small[:, 1]]
    Y = np.c_[v > 0, rng.random(40) < 0.5].astype(np.uint8)
    w_huge = ReliefFML(n_samples=None).fit(X_huge, Y).raw_weights_
    assert np.isfinite(w_huge).all()
    np.testing.assert_array_equal(w_huge, ReliefFML(n_samples=None).fit(X_small, Y).raw_weights_)


# ---------------------------------------------------------------- every ranker and learner on any finite input
@st.composite
def problems(draw):
    """Finite X (N in 3..10, D in 1..4): each column ordinary, huge (±1e308 and the float64 extremes), tiny or
    constant. Valid Y (N×Q, Q in 1..3, 0/1): every label has a positive and a negative instance, as a
    classification problem needs; y = Y[:, 0] for the single-label ReliefF; a finite numeric target t."""
    N, D, Q = draw(st.integers(3, 10)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    cols = []
    for _ in range(D):
        kind = draw(st.sampled_from(["ordinary", "huge", "tiny", "constant", "any"]))
        if kind == "constant": el = st.just(draw(st.sampled_from(SPECIAL)))
        elif kind == "ordinary": el = st.floats(-10, 10)
        elif kind == "huge": el = st.sampled_from([1e308, -1e308, BIG, -BIG, 0.0, 1.0])
        elif kind == "tiny": el = st.sampled_from([5e-324, -5e-324, 0.0, 1e-310])
        else: el = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(SPECIAL)
        cols.append(draw(arrays(np.float64, N, elements=el)))
    X = np.stack(cols, 1)
    Y = draw(arrays(np.uint8, (N, Q), elements=st.integers(0, 1)))
    for l in range(Q):                                   # every label has a positive and a negative instance
        i, j = draw(st.permutations(range(N)))[:2]
        if not Y[:, l].any(): Y[i, l] = 1
        if Y[:, l].all(): Y[j, l] = 0
    t = draw(arrays(np.float64, N, elements=st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(SPECIAL)))
    return X, Y, t


# A ValueError is an answer only with a message that says what is wrong with the input; these are the cases:
EXPLAINED = {
    # RReliefF and HMC-ReliefF (a regression on the label vector): the target differences among the neighbours
    # sum to 0 (the target does not vary there) or to m (it always varies maximally), so W is 0/0 (SPEC §1).
    # The sum must be a number: "sum to nan" is the overflow bug below, not an explanation.
    "rrelieff": r"undefined here: the target differences among neighbours sum to [-+0-9.e]+ of m = \d+ samples",
    # RF-ML: the same for the label-set distance of its RReliefF step.
    "rfml": r"does not vary|undefined here: the target differences among neighbours sum to [-+0-9.e]+ of",
}


def flat(Q): return Hierarchy([("root", f"c{l}") for l in range(Q)])


RANKERS = {
    "ReliefF": (lambda Q: ReliefF(), "y", None),
    "RReliefF": (lambda Q: RReliefF(), "t", "rrelieff"),
    "ReliefFML": (lambda Q: ReliefFML(n_samples=None), "Y", None),
    "RFML": (lambda Q: RFML(), "Y", "rfml"),
    "MLRF": (lambda Q: MLRF(), "Y", None),
    "BR-ReliefF": (lambda Q: BinaryRelevanceRanker(ReliefF()), "Y", None),
    "LP-ReliefF": (lambda Q: LabelPowersetRanker(ReliefF()), "Y", None),
    "HMC-ReliefF": (lambda Q: HMCReliefF(hierarchy=flat(Q)), "Y", "rrelieff"),
}


def finite_or_explained(fit, explained):
    "Run `fit`; its result must be finite, or it must raise a ValueError matching `explained`."
    try: out = fit()
    except ValueError as e:
        assert explained is not None and re.search(EXPLAINED[explained], str(e)), f"unexplained ValueError: {e}"
        return None
    assert np.isfinite(out).all(), out
    return out


@pytest.mark.parametrize("name", list(RANKERS))
@FAST
@given(prob=problems())
def test_rankers_finite_or_explained(name, prob):
    X, Y, t = prob
    make, target, explained = RANKERS[name]
    tgt = {"y": Y[:, 0], "Y": Y, "t": t}[target]
    w = finite_or_explained(lambda: make(Y.shape[1]).fit(X, tgt).weights_, explained)
    if w is not None: assert w.shape == (X.shape[1],)


LEARNERS = {"MLkNN": MLkNN, "BRkNN-a": BRkNN, "BRkNN-b": lambda **kw: BRkNN(variant="b", **kw), "DMLkNN": DMLkNN,
            "MLCWkNN": MLCWkNN}


@pytest.mark.parametrize("name", list(LEARNERS))
@FAST
@given(prob=problems(), q=arrays(np.float64, (2, 4), elements=st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(SPECIAL)))
def test_learners_finite(name, prob, q):
    """Scores of the training rows (and of midpoints between them) are finite probabilities, never a ValueError;
    any other finite query rows get finite scores or the ValueError that says they lie too far outside the
    training range (scaled beyond float64, or for MLC-WkNN squared distances beyond it)."""
    X, Y, _ = prob
    est = LEARNERS[name](n_neighbors=2).fit(X, Y)
    Xq = np.r_[X, X[::-1] / 2 + X / 2]                # midpoints (in halves: no overflow) stay in the range
    S, P = est.predict_proba(Xq), est.predict(Xq)
    assert np.isfinite(S).all() and (S >= -1e-12).all() and (S <= 1 + 1e-12).all(), S
    assert set(np.unique(P)) <= {0, 1}
    try: S = est.predict_proba(q[:, :X.shape[1]])
    except ValueError as e:
        assert "lies so far outside the training range" in str(e), e
        return
    assert np.isfinite(S).all() and (S >= -1e-12).all() and (S <= 1 + 1e-12).all(), S


def test_rrelieff_target_spanning_float64():
    rng = np.random.default_rng(0)
    X = rng.random((12, 2))
    t = np.where(X[:, 0] + 0.3 * rng.random(12) > 0.6, 1.0, -1.0)          # varies among neighbours
    expected = RReliefF(n_neighbors=3).fit(X, t).weights_                  # finite: about (0.46, -0.06)
    assert np.isfinite(expected).all()
    # ±1e308 scales to the same 0/1 target, so the weights must be the same
    np.testing.assert_allclose(RReliefF(n_neighbors=3).fit(X, t * 1e308).weights_, expected)
