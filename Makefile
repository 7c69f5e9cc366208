# Makefile -- builds the book: tangles the chapters, weaves HTML and PDF, compiles and runs the programs.
#
# Chapters are book/NN-slug.nw, in the order of NN; dropping a new one in is all it takes.
# Bash runs the recipes so that a failing stage of a pipeline fails the recipe (pipefail).
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -ec
.DELETE_ON_ERROR:
.SUFFIXES:

CHAPTERS ?= $(sort $(wildcard book/[0-9][0-9]-*.nw))
SLUGS := $(basename $(notdir $(CHAPTERS)))
MISSING := $(filter-out $(wildcard $(CHAPTERS)),$(CHAPTERS))
ifneq ($(MISSING),)
$(error $(MISSING): no such chapter file; CHAPTERS names it, and chapters are book/NN-slug.nw)
endif
GPU ?= h200
SET := measurements/$(GPU)
RECORDS := $(wildcard $(SET)/*.rec)
TANGLED := $(wildcard tangled/*)
PROGRAMS := $(basename $(notdir $(wildcard tangled/*.cu)))
ARCH ?= sm_90
NVCC ?= nvcc
NVCCFLAGS ?= -arch=$(ARCH) -Werror all-warnings
CC ?= cc
CFLAGS ?= -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror -pedantic
NWLIB ?= /usr/lib/noweb
PANDOC ?= pandoc
T := build/tools
WEAVE_TOOLS := $(T)/nwmarkup $(T)/cudadefs $(T)/nw2md
TOOLS := $(WEAVE_TOOLS) $(T)/nwcheck $(T)/record
# Built by pattern rules, but kept: a tool is no intermediate file.
.SECONDARY: $(TOOLS)
FIGURES := $(basename $(notdir $(wildcard figures/*.gp)))
PANDOC_COMMON := --from=markdown --wrap=none --syntax-definition=book/cuda.xml --highlight-style=tango \
                 --metadata-file=book/book.yaml
# Appended to a command that writes $@.tmp: on failure the temporary file goes too.
OR_DROP_TMP = || { rm -f $@.tmp; exit 1; }
PDF_FONTS := -V mainfont="DejaVu Serif" -V sansfont="DejaVu Sans" -V monofont="DejaVu Sans Mono" \
             -V monofontoptions=Scale=0.85

.PHONY: all tangle weave build programs run check claims browsercheck pdfcheck bench deps clean

# The main job: tangle, then weave the HTML site and the PDF (in that order, also under -j:
# weaving reads tangled/ to tell a fresh measurement from a stale one).
all: tangle
	@$(MAKE) --no-print-directory weave

# Extract every root file of the chapters into tangled/ (unchanged files keep their timestamps).
tangle: build/tangle.stamp

# Build build/html/ and build/book.pdf from the chapters (and the measurements of GPU=$(GPU)).
weave: build/html/index.html $(SLUGS:%=build/html/%.html) build/html/measurements.html \
       build/html/style.css build/html/book.pdf build/book.pdf $(FIGURES:%=build/html/%.svg)

# Compile every tangled program with nvcc into build/bin/ (ARCH=sm_90 by default; no GPU needed).
build: tangle
	@$(MAKE) --no-print-directory programs

# The compile step of build, once tangled/ is current.
programs: $(PROGRAMS:%=build/bin/%)

# Run every program and shell session on this machine's GPU and record what it printed.
run: $(T)/record
	TANGLED=tangled MEASUREMENTS=measurements RECORD=$(T)/record NVCC=$(NVCC) \
	  GPU="$(if $(filter command line environment,$(origin GPU)),$(GPU))" scripts/run.sh

# The test suite; it needs no GPU.
check:
	tests/run

# Report every claim of the chapters against the measurement set GPU=$(GPU).
claims: $(T)/record
	$(T)/record claims --all $(SET) tangled $(CHAPTERS)

# Render every HTML page in headless Chromium (links, images, console, phone width) with screenshots.
browsercheck: weave
	scripts/browsercheck.sh build/html build/screenshots

# Render every PDF page and check the TeX log for overfull lines, wrapped code and highlighting.
pdfcheck: weave
	scripts/pdfcheck.sh build/book.pdf build/pdf/book.log build/pdf/book.tex build/pdfpages

# Time a clean build, a no-op build and a prose edit, counting nvcc, pandoc and TeX runs.
bench:
	scripts/bench.sh

# Install every Debian package the book and its tests need (as root; quick when all is there).
deps:
	scripts/deps.sh

# Remove everything generated except tangled/ and the measurements, which are committed.
clean:
	rm -rf build

# --- settings that outputs depend on ----------------------------------------------------------
# build/setting-NAME holds the value of make variable NAME and changes only when it does, so
# that GPU=t4 re-weaves the book and ARCH=sm_80 recompiles the programs. It is written while
# the Makefile is read, so that make -q and make -n still tell the truth.
remember = $(shell mkdir -p build && { printf '%s\n' '$($(1))' | cmp -s - build/setting-$(1) || \
             printf '%s\n' '$($(1))' > build/setting-$(1); })
BOOKDATE := $(shell scripts/bookdate.sh)
$(call remember,GPU)
$(call remember,NVCCFLAGS)
$(call remember,BOOKDATE)

# --- tools ------------------------------------------------------------------------------------
$(T)/%: scripts/%.c | $(T)
	$(CC) $(CFLAGS) -o $@ $<
$(T)/nw2md $(T)/record: $(T)/%: scripts/%.c scripts/records.c scripts/values.c scripts/sha256.c \
                        scripts/records.h scripts/values.h scripts/sha256.h | $(T)
	$(CC) $(CFLAGS) -o $@ $(filter %.c,$^) -lm
$(T) build/bin build/md build/html build/pdf build/figures:
	mkdir -p $@

# --- figures: figures/NAME.gp drawn from the set, as SVG beside the pages and PDF for xelatex ---
# Redrawn when a record of the set changes, or one is added or removed (the folder's time).
FIGURE_DEPS := scripts/figure.sh $(T)/record $(RECORDS) $(wildcard $(SET)) build/setting-GPU
$(FIGURES:%=build/html/%.svg): build/html/%.svg: figures/%.gp $(FIGURE_DEPS) | build/html
	RECORD=$(T)/record scripts/figure.sh $< $(SET) $@
$(FIGURES:%=build/pdf/%.pdf): build/pdf/%.pdf: figures/%.gp $(FIGURE_DEPS) | build/pdf
	RECORD=$(T)/record scripts/figure.sh $< $(SET) $@

# --- tangling ---------------------------------------------------------------------------------
build/tangle.stamp: $(CHAPTERS) $(wildcard tangled) $(T)/nwmarkup $(T)/nwcheck scripts/tangle.sh
	TOOLS=$(T) NWLIB=$(NWLIB) scripts/tangle.sh tangled $(CHAPTERS)
	touch $@

# On a compile error, compile the #line copy too, so that the errors name book/*.nw lines.
build/bin/%: tangled/%.cu build/setting-NVCCFLAGS | build/bin
	@echo "$(NVCC) $(NVCCFLAGS) -o $@ $<"
	@$(NVCC) $(NVCCFLAGS) -o $@ $< || { \
	  mkdir -p build/lines; \
	  TOOLS=$(T) NWLIB=$(NWLIB) scripts/tangle.sh --lines $*.cu $(CHAPTERS) > build/lines/$*.cu && \
	  echo "$<: the same errors, at their lines in the book:" >&2; \
	  $(NVCC) $(NVCCFLAGS) -o /dev/null build/lines/$*.cu; exit 1; }

# --- weaving (static pattern rules: their files are never intermediate, so a page or the PDF
# is rebuilt whenever the Markdown under it is) ----------------------------------------------------------------------------------
# Navigation metadata (contents, previous, next) is brought up to date while the Makefile is
# read; navmeta.sh replaces a file only when its contents change, that is when a title does,
# so editing one chapter's prose re-weaves no other page, and make -q stays truthful.
NAVMETA_ERRORS := $(shell scripts/navmeta.sh build/meta $(CHAPTERS) 2>&1 || echo "(scripts/navmeta.sh failed)")
ifneq ($(NAVMETA_ERRORS),)
$(error $(NAVMETA_ERRORS))
endif

$(SLUGS:%=build/md/%.md): build/md/%.md: book/%.nw $(WEAVE_TOOLS) $(RECORDS) $(TANGLED) build/setting-GPU | build/md
	$(T)/nwmarkup $< | $(T)/cudadefs | $(NWLIB)/finduses | $(NWLIB)/noidx \
	  | $(T)/nw2md -s $(SET) -t tangled > $@.tmp $(OR_DROP_TMP)
	mv $@.tmp $@

HTML_DEPS := book/template.html book/book.yaml book/cuda.xml
$(SLUGS:%=build/html/%.html): build/html/%.html: build/md/%.md build/meta/%.yaml $(HTML_DEPS) | build/html
	$(PANDOC) $(PANDOC_COMMON) --to=html5 --standalone --template=book/template.html \
	  --toc --toc-depth=2 --metadata-file=build/meta/$*.yaml --default-image-extension=svg \
	  -o $@.tmp $< $(OR_DROP_TMP)
	mv $@.tmp $@

build/html/index.html: book/index.md build/meta/index.yaml $(HTML_DEPS) | build/html
	$(PANDOC) $(PANDOC_COMMON) --to=html5 --standalone --template=book/template.html \
	  --metadata-file=build/meta/index.yaml -M front=true -o $@.tmp $< $(OR_DROP_TMP)
	mv $@.tmp $@

build/html/measurements.html: build/md/measurements.md build/meta/index.yaml $(HTML_DEPS) | build/html
	$(PANDOC) $(PANDOC_COMMON) --to=html5 --standalone --template=book/template.html \
	  --metadata-file=build/meta/index.yaml -M pagetitle=Measurements -o $@.tmp $< $(OR_DROP_TMP)
	mv $@.tmp $@

build/md/measurements.md: $(T)/record $(RECORDS) $(TANGLED) build/setting-GPU | build/md
	$(T)/record page $(SET) tangled > $@.tmp $(OR_DROP_TMP)
	mv $@.tmp $@

build/html/style.css: book/style.css | build/html
	cp $< $@

build/html/book.pdf: build/book.pdf | build/html
	cp $< $@

# One PDF of all chapters: pandoc writes the LaTeX, xelatex runs until the contents settle
# (twice, or three times), and its log stays in build/pdf/ for the checks.
build/pdf/book.tex: $(SLUGS:%=build/md/%.md) book/book.yaml book/cuda.xml book/preamble.tex build/setting-BOOKDATE $(FIGURES:%=build/pdf/%.pdf) | build/pdf
	$(PANDOC) $(PANDOC_COMMON) --to=latex --standalone --top-level-division=chapter \
	  --toc -V documentclass=report -V geometry:margin=2.2cm $(PDF_FONTS) -V colorlinks \
	  -M date="$(BOOKDATE)" --include-in-header=book/preamble.tex \
	  --resource-path=build/pdf --default-image-extension=pdf \
	  -o $@.tmp $(filter %.md,$^) $(OR_DROP_TMP)
	mv $@.tmp $@

build/book.pdf: build/pdf/book.tex
	cd build/pdf && for pass in 1 2 3; do \
	  SOURCE_DATE_EPOCH=$$(../../scripts/bookdate.sh -e) FORCE_SOURCE_DATE=1 \
	    xelatex -interaction=nonstopmode -halt-on-error book.tex > book.out 2>&1 || { \
	    tail -n 30 book.out >&2; echo "build/pdf/book.log: xelatex failed" >&2; exit 1; }; \
	  [ $$pass -lt 2 ] || grep -q 'Rerun to get' book.log || break; done
	cp build/pdf/book.pdf $@
