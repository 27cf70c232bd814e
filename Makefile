# mfx — `make demo` runs the main job, `make test` the fast test suite; both install first.
PYTHON ?= python3
VENV ?= .venv
# The CPU build of torch for machines without a GPU; override e.g. TORCH_SPEC="torch==2.13.0+cu126".
TORCH_SPEC ?= torch==2.13.0
BIN := $(VENV)/bin
STAMP := $(VENV)/.mfx-installed
OUT ?= outputs

.PHONY: install test test-all test-slurm demo figures paper docs audit power bench lint clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q "$(TORCH_SPEC)"
	$(BIN)/pip install -q -e ".[dev]"
	touch $(STAMP)

test: install
	$(BIN)/python -m pytest -q -n auto --dist loadfile

# Every test, the real-SLURM ones included when run as root (scripts/slurm-up.sh brings SLURM up).
test-all: install
	@if [ "$$(id -u)" = 0 ]; then sh scripts/slurm-up.sh; else echo "not root: the SLURM tests are skipped (make test-slurm as root)"; fi
	$(BIN)/python -m pytest -q -m "slow or not slow"

# A single-node SLURM with accounting (Debian packages, as root), then the slow SLURM tests.
test-slurm: install
	sh scripts/slurm-up.sh
	$(BIN)/python -m pytest -q -s -m slow tests/test_launchers.py -k slurm

demo: install
	$(BIN)/mfx run experiment=resnet_phase scale=quick out=$(OUT)
	$(BIN)/mfx report $(OUT)/resnet_phase/quick
	@echo "report: $(OUT)/resnet_phase/quick/report.html (figures: $(OUT)/resnet_phase/quick/figures/)"
	@echo "to type mfx yourself: . $(VENV)/bin/activate"

# every experiment at quick scale; the run ends with one report of them all
figures: install
	$(BIN)/mfx run experiment=all scale=quick out=$(OUT)
	@echo "report: $(OUT)/report-quick/report.html"

# every experiment at paper scale, each sweep launched as mfx chooses for the cores it sees (mfx/launch.py);
# restartable (rerun to resume); then the timing record docs/performance.md, the dry run's costs and the
# paper-scale statements (docs/statements-paper.md, the README's second headline)
paper: install
	$(BIN)/mfx run experiment=all scale=paper out=$(OUT)
	$(BIN)/mfx calibrate $(OUT) --performance docs/performance.md
	$(BIN)/mfx docs --paper-claims $(OUT)/report-paper/claims.csv
	@echo "report: $(OUT)/report-paper/report.html"

# docs/statements.md, docs/claims.md and the README's figure table, from every experiment at quick scale
docs: figures
	$(BIN)/mfx docs --claims $(OUT)/report-quick/claims.csv
	$(BIN)/mfx calibrate $(OUT) --performance docs/performance.md

# Every claim at quick scale on seeds no range was set on (9090.. this round: a new round takes the next
# unused block), with each claim's statement and post-hoc seeds → docs/audit.md (≈ 8 CPU-min a seed)
AUDIT_FIRST_SEED ?= 9090
AUDIT_SEEDS ?= 2
audit: install
	$(BIN)/mfx audit --seeds $(AUDIT_SEEDS) --first-seed $(AUDIT_FIRST_SEED) --scale quick --out $(OUT)/audit --md docs/audit.md

# Each sized realistic mistake over its sizes, quick scale, seed 0 → docs/power.md, docs/power.csv
power: install
	PYTHONPATH=. $(BIN)/python scripts/power.py --out $(OUT)/power

bench: install
	$(BIN)/python -m benchmarks

lint: install
	$(BIN)/ruff check mfx tests benchmarks scripts
	$(BIN)/ruff format --check mfx tests benchmarks scripts

clean:
	rm -rf $(OUT)/*/ .pytest_cache
