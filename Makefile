# Developer shortcuts. `make build` recompiles the core after an edit of ferz/core/*.py.
PY ?= python3

.PHONY: build test slow lint format bench clean
build:
	flock /tmp/ferz-build.lock $(PY) setup.py -q build_ext --inplace
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
clean:
	rm -rf build ferz/core/*.c ferz/core/*.so ferz/core/*.html
