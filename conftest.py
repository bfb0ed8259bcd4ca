"""Project-wide pytest glue.

`nbdev-clean` (which CI requires) blanks every cell's execution count but keeps its outputs, and nbval
refuses cells that have outputs but no count ("Unrun reference cell has outputs"). The notebooks are
run and checked by nbval in lax mode — every cell must run; only cells marked `# NBVAL_CHECK_OUTPUT`
are compared with their saved output — so we give such cells a placeholder count at collection.
"""


def pytest_collection_modifyitems(config, items):
    for item in items:
        cell = getattr(item, "cell", None)
        if cell is not None and cell.get("cell_type") == "code" and cell.get("outputs") and cell.get("execution_count") is None:
            cell["execution_count"] = 1
