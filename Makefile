# Convenience targets; CI calls go test and scripts directly.
.PHONY: fuzz

FUZZTIME ?= 30s
FUZZPARALLEL ?= 1

# make fuzz [FUZZTIME=30s] [FUZZPARALLEL=1]: every fuzz target, one after another.
fuzz:
	FUZZTIME=$(FUZZTIME) FUZZPARALLEL=$(FUZZPARALLEL) scripts/fuzz.sh
