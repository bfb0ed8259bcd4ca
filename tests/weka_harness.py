"""Run a Weka attribute evaluator from the tests and read its scores at full double precision.

The Weka command line prints six decimals; parity within 1e-9 needs `evaluateAttribute(i)` itself. A
tiny Java class (`WekaScores`) is compiled once per process against the given `weka.jar`, then each call
runs `java WekaScores EvaluatorClass [options...] -- file.arff [more.arff ...]`: for each file it
loads the ARFF, makes the last attribute the class, builds the evaluator with the options and prints
`Double.toString` of `evaluateAttribute(i)` for every non-class attribute, one per line (shortest round-trip form, so
`float()` recovers the exact double). Passing a list of files runs them all in one JVM (about 0.5 s of
start-up saved per file).

    from weka_harness import weka_scores, write_arff
    write_arff(path, X, y, nominal=..., categories=..., class_values=...)
    w = weka_scores(weka_jar, path, "weka.attributeSelection.ReliefFAttributeEval", "-M -1 -K 10", tmp_path)
"""
import shlex, subprocess, tempfile
from pathlib import Path
import numpy as np

JAVA_SOURCE = r"""
import java.io.BufferedReader;
import java.io.FileReader;
import java.util.Arrays;
import weka.core.Instances;
import weka.attributeSelection.ASEvaluation;
import weka.attributeSelection.AttributeEvaluator;

// java WekaScores EvaluatorClass [options...] -- file1.arff [file2.arff ...]
// prints one score per line for each file, and a line "#" after each file.
public class WekaScores {
  public static void main(String[] args) throws Exception {
    int sep = Arrays.asList(args).indexOf("--");
    StringBuilder sb = new StringBuilder();
    for (int f = sep + 1; f < args.length; f++) {
      Instances data = new Instances(new BufferedReader(new FileReader(args[f])));
      data.setClassIndex(data.numAttributes() - 1);
      String[] opts = Arrays.copyOfRange(args, 1, sep);
      ASEvaluation ev = ASEvaluation.forName(args[0], opts);
      ev.buildEvaluator(data);
      AttributeEvaluator ae = (AttributeEvaluator) ev;
      for (int i = 0; i < data.numAttributes(); i++) {
        if (i == data.classIndex()) continue;
        sb.append(Double.toString(ae.evaluateAttribute(i))).append('\n');
      }
      sb.append("#\n");
    }
    System.out.print(sb);
  }
}
"""

_COMPILED = {}  # weka.jar path -> folder holding WekaScores.class


def compile_harness(weka_jar, tmpdir=None) -> Path:
    "Compile `WekaScores.java` against `weka_jar` (once per process) and return the class folder."
    key = str(Path(weka_jar).resolve())
    out = _COMPILED.get(key)
    if out is not None and (out / "WekaScores.class").exists(): return out
    base = Path(tmpdir) if tmpdir is not None else Path(tempfile.mkdtemp(prefix="weka_harness_"))
    out = base / "weka_harness_classes"
    out.mkdir(parents=True, exist_ok=True)
    (out / "WekaScores.java").write_text(JAVA_SOURCE)
    subprocess.run(["javac", "-nowarn", "-cp", key, "-d", str(out), str(out / "WekaScores.java")],
                   check=True, capture_output=True, text=True)
    _COMPILED[key] = out
    return out


def weka_scores(weka_jar, arff_path, evaluator_class, options="", tmpdir=None):
    """Scores of Weka's `evaluator_class` (with `options`, a string or list) for every non-class attribute.

    `arff_path` is one file (returns an ndarray) or a list of files, run in one JVM (returns a list)."""
    classes = compile_harness(weka_jar, tmpdir)
    opts = shlex.split(options) if isinstance(options, str) else [str(o) for o in options]
    files = [arff_path] if isinstance(arff_path, (str, Path)) else list(arff_path)
    cp = f"{classes}:{Path(weka_jar).resolve()}"
    res = subprocess.run(["java", "-Xmx1g", "-cp", cp, "WekaScores", evaluator_class, *opts, "--",
                          *[str(f) for f in files]], capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"Weka failed ({evaluator_class} {' '.join(opts)}) on {files}:\n{res.stderr}")
    blocks = res.stdout.split("#\n")[:-1]
    out = [np.array([float(v) for v in b.split()], dtype=np.float64) for b in blocks]
    return out[0] if isinstance(arff_path, (str, Path)) else out


def _quote(s) -> str:
    "ARFF-quote a name or nominal value."
    s = str(s)
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def write_arff(path, X, y, nominal=None, categories=None, class_values=None, feature_names=None,
               class_name="class", relation="relieffml_test"):
    """Write a single-label ARFF: features of `X` (NaN = '?'; nominal columns hold integer codes into
    `categories[f]`, default '0','1',...) and the class `y` last — nominal (codes into `class_values`,
    default the sorted distinct codes' strings) unless `class_values == "numeric"`."""
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    nominal = np.zeros(d, bool) if nominal is None else np.asarray(nominal, bool)
    names = feature_names or [f"f{j}" for j in range(d)]
    cats = list(categories) if categories is not None else [None] * d
    for j in range(d):
        if nominal[j] and cats[j] is None:
            codes = X[~np.isnan(X[:, j]), j]
            cats[j] = [str(v) for v in range(int(codes.max()) + 1 if codes.size else 1)]
    y = np.asarray(y)
    numeric_class = isinstance(class_values, str) and class_values == "numeric"
    if not numeric_class and class_values is None:
        class_values = [str(v) for v in range(int(y.max()) + 1)]
    lines = [f"@relation {_quote(relation)}", ""]
    for j in range(d):
        typ = "{" + ",".join(_quote(c) for c in cats[j]) + "}" if nominal[j] else "numeric"
        lines.append(f"@attribute {_quote(names[j])} {typ}")
    ctyp = "numeric" if numeric_class else "{" + ",".join(_quote(c) for c in class_values) + "}"
    lines += [f"@attribute {_quote(class_name)} {ctyp}", "", "@data"]
    for i in range(n):
        row = []
        for j in range(d):
            v = X[i, j]
            if np.isnan(v): row.append("?")
            elif nominal[j]: row.append(_quote(cats[j][int(v)]))
            else: row.append(repr(float(v)))
        c = y[i]
        row.append(repr(float(c)) if numeric_class else _quote(class_values[int(c)]))
        lines.append(",".join(row))
    Path(path).write_text("\n".join(lines) + "\n")
    return Path(path)
