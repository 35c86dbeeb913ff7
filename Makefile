# Developer shortcuts. `make build` recompiles the core after an edit of ferz/core/*.py;
# `make pgo` rebuilds it with gcc's profile-guided optimisation (trained on bench and perft).
PY ?= python3

.PHONY: build pgo test slow lint format bench docs clean
# (pyproject.toml's SPDX licence needs setuptools 77: pip's isolated build has it, an older
# setuptools in the environment stops `setup.py` with a schema error, so say what to do instead)
SETUPTOOLS_OK = $(PY) -c "import setuptools as s, sys; v = int(s.__version__.split('.')[0]); \
	sys.exit(0 if v >= 77 else 'make: setuptools ' + s.__version__ + ' is too old for setup.py; run: $(PY) -m pip install -U \'setuptools>=77\'')"
build:
	@$(SETUPTOOLS_OK)
	flock /tmp/ferz-build.lock $(PY) setup.py -q build_ext --inplace
# Profile-guided build: compile instrumented, run a bench and a perft (chess and a variant) to
# record which branches are taken, then compile again with that profile. CFLAGS adds the profile
# options to setup.py's FLAGS. The instrumented build compiles the network's loops once
# (NOCLONES): gcc instruments the resolver of target_clones, which then crashes at load time,
# before its counters are relocated. Optional (docs/engine.md "Build flags").
NOCLONES = '-DFERZ_SIMD=__attribute__((unused))'
pgo:
	@$(SETUPTOOLS_OK)
	find build -name '*.gcda' -delete 2>/dev/null || true
	CFLAGS="-fprofile-generate -fprofile-update=single $(NOCLONES)" LDFLAGS="-fprofile-generate" \
		flock /tmp/ferz-build.lock $(PY) setup.py -q build_ext --inplace --force
	$(PY) -m ferz bench 9 >/dev/null
	$(PY) -m ferz perft 5 >/dev/null
	$(PY) -m ferz perft 4 --variant xiangqi >/dev/null
	CFLAGS="-fprofile-use -fprofile-correction -Wno-missing-profile -Wno-coverage-mismatch" \
		flock /tmp/ferz-build.lock $(PY) setup.py -q build_ext --inplace --force
	find build -name '*.gcda' -delete
test: build
	$(PY) -m pytest -q
slow: build
	$(PY) -m pytest -q -m slow
lint:
	ruff check ferz tests bench tools && ruff format --check ferz tests bench tools
format:
	ruff format ferz tests bench tools && ruff check --fix ferz tests bench tools
bench: build
	$(PY) -m ferz bench
# The API reference from the docstrings (pip install -e '.[docs]'); warnings are errors.
docs:
	$(PY) -m sphinx -W -q -b html docs/api build/api
clean:
	rm -rf build ferz/core/*.c ferz/core/*.so ferz/core/*.html
