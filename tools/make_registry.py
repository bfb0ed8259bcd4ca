#!/usr/bin/env python
"""Write relieffml/datasets/registry.json, the table of every data set `load_dataset` can fetch, from the shared data.

Inputs (read-only, beside the repository in ../shared/datasets):
  mulan-mirror/MANIFEST.tsv        every file of Mulan's data tree at the pinned commit: blob SHA-1, bytes, SHA-256
  mulan-mirror/.../README.md       Mulan's statistics table (instances, attributes, labels, cardinality, distinct)
  mulan-mirror/.../<set>/*.arff    the copied files, whose rows and attributes are counted here (a line scan,
                                   independent of the package's ARFF reader) for each split's expected shape
  hmc/SOURCES.tsv                  the Clus HMC files of EGiunchiglia/C-HMCNN
The few facts no file holds (which papers use a set, citations of sets without a README, sets no public
source has) are the tables below. Run it again when an input changes:

    python tools/make_registry.py [SHARED_DATASETS]
"""
import csv, html, json, re, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "datasets"
OUT = ROOT / "relieffml" / "datasets" / "registry.json"
MULAN_COMMIT = "43f6389095ad71984264db4387a8074b22bc7d4a"
MULAN_PREFIX = f"tsoumakas/mulan/{MULAN_COMMIT}/"
HMC_COMMIT = "e887855ab4b3b8f22e4fafc80a0a33c1d1ac0041"
HMC_PREFIX = f"EGiunchiglia/C-HMCNN/{HMC_COMMIT}/"
HOST = "https://raw.githubusercontent.com/"
MIRROR = SHARED / "mulan-mirror"

# Mulan folder -> (set name, file stem, forms) ; a set per stem (tmc2007 holds two, corel16k ten)
SPARSE_FORM = {"corel5k": "-sparse"}          # the form the mirror holds (the dense one is not copied)
PAPERS = {  # which of papers 000-004 (/work/shared/papers/README.md) use a set, read from their data tables
    "cal500": ["000", "001", "003"], "corel5k": ["000", "001"], "emotions": ["000", "001", "003", "004"],
    "enron": ["000", "003", "004"], "genbase": ["000", "001", "003"], "medical": ["000", "003"],
    "scene": ["000", "001"], "tmc2007-500": ["000"], "yeast": ["000", "001", "003", "004"], "birds": ["003"],
    "ImCLEF07A": ["002"], "ImCLEF07D": ["002"], "reuters": ["002"], "mediamill": ["000"], "fapesp": ["001"],
    "magtag5k": ["001"], "llog-f": ["001"], "SCOP": ["002"]}
PAPERS.update({f"corel16k{i:03d}": ["000", "001"] for i in range(1, 11)})
ALIASES = {"cal500": ["CAL500"], "corel5k": ["Corel5k"], "tmc2007-500": ["tmc2007_500", "TMC2007-500"],
           "llog-f": ["llog", "Llog-f"], "SCOP": ["scop"]}
CITATIONS = {  # sets whose Mulan folder has no README with a source
    "genbase": "S. Diplaris, G. Tsoumakas, P. A. Mitkas, I. Vlahavas, Protein classification with multiple algorithms, "
               "Proc. PCI 2005, LNCS 3746, 448-456",
    "medical": "J. P. Pestian et al., A shared task involving multi-label classification of clinical free text, "
               "Proc. BioNLP 2007, 97-104",
    "scene": "M. R. Boutell, J. Luo, X. Shen, C. M. Brown, Learning multi-label scene classification, "
             "Pattern Recognition 37(9), 1757-1771, 2004, doi:10.1016/j.patcog.2004.03.009",
    "yeast": "A. Elisseeff, J. Weston, A kernel method for multi-labelled classification, NIPS 14, 681-687, 2001",
    "tmc2007": "A. N. Srivastava, B. Zane-Ulman, Discovering recurring anomalies in text reports regarding complex "
               "space systems, IEEE Aerospace Conference 2005",
    "flags": "E. C. Goncalves, A. Plastino, A. A. Freitas, A genetic algorithm for optimizing the label ordering in "
             "multi-label classifier chains, Proc. ICTAI 2013, 469-476 (from the UCI Flags data)",
    "enron": "B. Klimt, Y. Yang, The Enron corpus: a new dataset for email classification research, Proc. ECML 2004, "
             "LNCS 3201, 217-226 (files as in the MEKA datasets)"}
HMC_CITATION = ("C. Vens, J. Struyf, L. Schietgat, S. Dzeroski, H. Blockeel, Decision trees for hierarchical "
                "multi-label classification, Machine Learning 73(2), 185-214, 2008, doi:10.1007/s10994-008-5077-3")
IMCLEF_CITATION = ("I. Dimitrovski, D. Kocev, S. Loskovska, S. Dzeroski, Hierarchical annotation of medical images, "
                   "Pattern Recognition 44(10-11), 2436-2449, 2011, doi:10.1016/j.patcog.2011.03.026")
HMC_SETS = {  # name -> (split -> path in C-HMCNN, citation)
    "ImCLEF07A": ({"train": "HMC_data/others/ImCLEF07A_Train.arff", "test": "HMC_data/others/ImCLEF07A_Test.arff"},
                  IMCLEF_CITATION),
    "ImCLEF07D": ({"train": "HMC_data/others/ImCLEF07D_Train.arff", "test": "HMC_data/others/ImCLEF07D_Test.arff"},
                  IMCLEF_CITATION),
    "cellcycle_FUN": ({s: f"HMC_data/datasets_FUN/cellcycle_FUN/cellcycle_FUN.{s}.arff" for s in ("train", "valid", "test")},
                      HMC_CITATION),
    "cellcycle_GO": ({s: f"HMC_data/datasets_GO/cellcycle_GO/cellcycle_GO.{s}.arff" for s in ("train", "valid", "test")},
                     HMC_CITATION),
    "reuters": ({"train": "HMC_data/others/reuters_train.arff", "test": "HMC_data/others/reuters_test.arff"},
                HMC_CITATION)}
BY_HAND = {  # sets the papers use that no public repository holds at a pinned commit
    "mediamill": "C. G. M. Snoek et al., The challenge problem for automated detection of 101 semantic concepts in "
                 "multimedia, Proc. ACM Multimedia 2006; listed in Mulan's statistics table but absent from its data tree",
    "fapesp": "Spolaor et al. 2015 (paper 001), built by its authors from FAPESP project abstracts; not published as a file",
    "magtag5k": "G. Marques, M. A. Domingues, T. Langlois, F. Gouyon, Three current issues in music autotagging, "
                "Proc. ISMIR 2011; distributed by its authors, not in Mulan's tree",
    "llog-f": "J. Read, Scalable multi-label classification, PhD thesis, University of Waikato, 2010 (MEKA's LLOG "
              "data); not in Mulan's tree",
    "SCOP": "Clus HMC data page (dtai.cs.kuleuven.be/clus/hmcdatasets), SCOP-GO; used by paper 002; no copy at a "
            "pinned commit of a public repository"}


def read_tsv(path):
    "Rows of a MANIFEST/SOURCES table as dicts (comment lines skipped)."
    lines = [l for l in path.read_text().splitlines() if l and not l.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def mulan_table(readme):
    "name (lower case) -> the statistics row of Mulan's README table."
    rows = {}
    for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", readme, re.S):
        cells = [html.unescape(re.sub(r"<[^>]+>", "", td)).strip() for td in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
        if len(cells) != 9 or not cells[2].replace("±", "").replace(".", "").isdigit(): continue
        keys = ("name", "domain", "instances", "nominal", "numeric", "labels", "cardinality", "density", "distinct")
        rows[cells[0].split(" (")[0].lower()] = dict(zip(keys, cells))
    return rows


def scan_arff(path):
    "(rows, attributes, sparse) of an ARFF file by a line scan: @attribute lines, then non-comment data lines."
    n_attr = rows = 0
    sparse, in_data = False, False
    with open(path, encoding="latin-1") as fp:
        for line in fp:
            s = line.strip()
            if not s or s.startswith("%"): continue
            if in_data:
                rows += 1
                sparse = sparse or s.startswith("{")
            elif s.lower().startswith("@attribute"): n_attr += 1
            elif s.lower().startswith("@data"): in_data = True
    return rows, n_attr, sparse


def file_entry(prefix, path, info, root):
    "A file's pinned URL, blob SHA-1, bytes and SHA-256 (None where the manifest has none)."
    return {"path": path, "url": HOST + prefix + path, "git_blob_sha1": info["git_blob_sha1"],
            "bytes": int(info["bytes"]) if info["bytes"] else None, "sha256": info["sha256"] or None,
            "in_mirror": (root / (prefix + path)).is_file()}


def shape_of(root, prefix, entry, n_labels):
    "Expected (instances, features, labels, sparse) of a split counted in its mirrored file, else None."
    p = root / (prefix + entry["path"])
    if not p.is_file(): return None
    rows, n_attr, sparse = scan_arff(p)
    return {"instances": rows, "features": n_attr - n_labels, "labels": n_labels, "sparse": sparse, "counted_in": "file"}


def table_shape(row, n_labels, sparse):
    "Expected shape of a union not copied here, from Mulan's statistics table (None where it gives mean ± sd)."
    if row is None or not row["instances"].isdigit(): return None
    return {"instances": int(row["instances"]), "features": int(row["nominal"]) + int(row["numeric"]),
            "labels": n_labels, "sparse": sparse, "counted_in": "mulan README table"}


def stem_sets(files):
    "Mulan set name -> (folder, stem) for every XML label file of the tree (one set per XML)."
    sets = {}
    for path in files:
        m = re.fullmatch(r"data/multi-label/([^/]+)/([^/]+)\.xml", path)
        if m: sets[m[2].lower() if m[1] != "corel16k" else m[2].lower()] = (m[1], m[2])
    return sets


def blob_sha1(data:bytes) -> str:
    "The git blob SHA-1 of `data`."
    import hashlib
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def bundled_blobs():
    "git blob SHA-1 of each bundled file's content -> its path under relieffml/datasets."
    import gzip
    base = ROOT / "relieffml" / "datasets"
    return {blob_sha1(gzip.decompress(p.read_bytes())): p.relative_to(base).as_posix() for p in base.rglob("*.gz")}


def mulan_set(name, folder, stem, files, table, readmes, bundled):
    "The registry entry of one Mulan set."
    form = SPARSE_FORM.get(folder, "")
    base = f"data/multi-label/{folder}/"
    xml = files[f"{base}{stem}.xml"]
    n_labels = (MIRROR / (MULAN_PREFIX + base + stem + ".xml")).read_text(encoding="utf-8").count("<label ")
    splits = {}
    for split, suffix in (("all", ""), ("train", "-train"), ("test", "-test"), ("test3", "-test3")):
        path = f"{base}{stem}{suffix}{form}.arff"
        if path not in files: continue
        entry = file_entry(MULAN_PREFIX, path, files[path], MIRROR)
        entry["bundled"] = bundled.get(entry["git_blob_sha1"])
        entry["shape"] = shape_of(MIRROR, MULAN_PREFIX, entry, n_labels)
        splits[split] = entry
    row = table.get(name) or (table.get(folder) if folder == "corel16k" else None)   # corel16k: mean ± sd of 10
    if "all" in splits and splits["all"]["shape"] is None:
        known = [e["shape"]["sparse"] for e in splits.values() if e["shape"]]
        splits["all"]["shape"] = table_shape(row, n_labels, known[0] if known else None)
    return {"name": name, "source": "mulan", "aliases": ALIASES.get(name, []), "xml": file_entry(MULAN_PREFIX, base + stem + ".xml", xml, MIRROR),
            "splits": splits, "union_of": None if "all" in splits else [s for s in ("train", "test") if s in splits],
            "n_labels": n_labels, "mulan_table": row, "citation": CITATIONS.get(folder) or readmes.get(folder),
            "papers": PAPERS.get(name, []), "by_hand": None}


def readme_citation(files):
    "Mulan folder -> the first source line of its README (markdown link text)."
    out = {}
    for path in files:
        m = re.fullmatch(r"data/multi-label/([^/]+)/README\.(md|txt)", path)
        p = MIRROR / (MULAN_PREFIX + path)
        if not m or not p.is_file(): continue
        text = p.read_text(encoding="utf-8")
        link = re.search(r"\[([^\]]{20,})\]", text)
        if link: out[m[1]] = re.sub(r"\s+", " ", link[1]).strip()
    return out


def hmc_set(name, paths, citation, sources, bundled):
    "The registry entry of one Clus HMC set (train/test, sometimes valid; no union)."
    splits = {}
    for split, path in paths.items():
        entry = file_entry(HMC_PREFIX, path, sources[path], SHARED / "hmc-mirror")
        entry["in_mirror"] = False
        entry["bundled"] = bundled.get(entry["git_blob_sha1"])
        copy = SHARED / "hmc" / path.rsplit("/", 1)[-1]       # ../hmc holds the same bytes (SOURCES.tsv)
        rows, n_attr, sparse = scan_arff(copy) if copy.is_file() else (None, None, None)
        entry["shape"] = None if rows is None else {"instances": rows, "features": n_attr - 1, "labels": None,
                                                   "sparse": sparse, "counted_in": "file"}
        splits[split] = entry
    return {"name": name, "source": "clus-hmc", "aliases": [], "xml": None, "splits": splits, "union_of": None,
            "n_labels": None, "mulan_table": None, "citation": citation, "papers": PAPERS.get(name, []), "by_hand": None}


def by_hand_set(name, where):
    "The registry entry of a set no public source holds: where it was published, to be supplied by hand."
    return {"name": name, "source": None, "aliases": ALIASES.get(name, []), "xml": None, "splits": {}, "union_of": None,
            "n_labels": None, "mulan_table": None, "citation": where, "papers": PAPERS.get(name, []), "by_hand": where}


def main():
    files = {r["path"]: r for r in read_tsv(MIRROR / "MANIFEST.tsv")}
    table = mulan_table((MIRROR / (MULAN_PREFIX + "data/multi-label/README.md")).read_text(encoding="utf-8"))
    readmes, bundled = readme_citation(files), bundled_blobs()
    sets = [mulan_set(name, folder, stem, files, table, readmes, bundled)
            for name, (folder, stem) in sorted(stem_sets(files).items())]
    sources = {r["path"]: r for r in read_tsv(SHARED / "hmc" / "SOURCES.tsv")}
    sets += [hmc_set(n, paths, cit, sources, bundled) for n, (paths, cit) in HMC_SETS.items()]
    sets += [by_hand_set(n, where) for n, where in BY_HAND.items()]
    registry = {"about": "Generated by tools/make_registry.py from ../shared/datasets (Mulan's MANIFEST.tsv and README "
                         "table, hmc/SOURCES.tsv); do not edit by hand.",
                "mulan_commit": MULAN_COMMIT, "hmc_commit": HMC_COMMIT, "host": HOST, "sets": sets}
    OUT.write_text(json.dumps(registry, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{OUT.relative_to(ROOT)}: {len(sets)} sets")


if __name__ == "__main__":
    main()
