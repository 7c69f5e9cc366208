# Makefile -- builds the book: tangles the chapters, weaves the HTML site and the PDF, compiles and runs the programs.
#
# Data flows one way (notes/design.md): book/*.nw -> tangled/ -> build/bin -> measurements/ ->
# build/values -> build/html, build/book.pdf. Chapters are book/NN-slug.nw, in the order of NN.
# Bash runs the recipes so that a failing stage of a pipeline fails the recipe (pipefail).
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -ec
.DELETE_ON_ERROR:
.SUFFIXES:

# A setting given on the command line or in the environment is text: make syntax in it is not run.
$(foreach v,CHAPTERS GPU ARCH NVCC NVCCFLAGS SOURCE_DATE_EPOCH,$(if $(filter command line environment,\
  $(origin $(v))),$(eval override $(v) := $$(value $(v)))))
CHAPTERS ?= $(sort $(wildcard book/[0-9][0-9]-*.nw))
SLUGS := $(basename $(notdir $(CHAPTERS)))
# Names reach rules and recipes as they are, so a name that make or the shell would read as syntax
# is refused here, before any rule is read: $(call unsafe,TEXT,CHARS) is what TEXT holds besides CHARS.
lower := a b c d e f g h i j k l m n o p q r s t u v w x y z
upper := A B C D E F G H I J K L M N O P Q R S T U V W X Y Z
digits := 0 1 2 3 4 5 6 7 8 9
alnum := $(lower) $(upper) $(digits)
unsafe = $(if $(2),$(call unsafe,$(subst $(firstword $(2)),,$(1)),$(wordlist 2,99,$(2))),$(1))
NN := $(foreach a,$(digits),$(addprefix $(a),$(digits)))
# $(call not-chapter,NAME) is NAME unless it is book/NN-slug.nw, its slug made of a-z, 0-9 and -.
not-chapter = $(if $(and $(filter $(NN:%=book/%-%.nw),$(filter-out $(NN:%=book/%-.nw),$(1))),$(if \
                $(call unsafe,$(patsubst book/%.nw,%,$(1)),$(lower) $(digits) -),,ok)),,$(1))
# (the wildcard's own order, unlike CHAPTERS's sorted one, keeps the words of a name with blanks together)
BAD := $(strip $(foreach c,$(if $(filter file,$(origin CHAPTERS)),$(wildcard book/[0-9][0-9]-*.nw),$(CHAPTERS)),\
         $(call not-chapter,$(c))))
BAD += $(filter-out $(wildcard book/[0-9][0-9]-*.nw),$(wildcard book/*.nw))
ifneq ($(call unsafe,$(SOURCE_DATE_EPOCH),$(digits)),)
$(error SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH): expected a number of seconds since 1970)
endif
ifneq ($(strip $(BAD)),)
$(error $(BAD): not a chapter name: a chapter is book/NN-slug.nw, its slug made of a-z, 0-9 and -; rename the file)
endif
ifeq ($(CHAPTERS),)
ifneq ($(filter-out clean deps check bench,$(or $(MAKECMDGOALS),all)),)
$(error book/: no chapters: a chapter is a file book/NN-slug.nw, and there is none to tangle or weave)
endif
endif
MISSING := $(filter-out $(wildcard $(CHAPTERS)),$(CHAPTERS))
ifneq ($(MISSING),)
$(error $(MISSING): no such chapter file; CHAPTERS names it, and chapters are book/NN-slug.nw)
endif
# The default set is named in book/default-set alone. Every set in measurements/ is woven into one
# site: GPU's pages are SLUG.html, another set's SLUG.SET.html; GPU= also picks build/book.pdf's set.
GPU ?= $(strip $(file <book/default-set))
# $(call not-set,NAME) is NAME unless it is one word of A-Z, a-z, 0-9, '.', '_' and '-', not starting with '.'.
not-set = $(if $(filter-out 1,$(words $(1))$(filter .%,$(1))$(call unsafe,$(1),$(alnum) . _ -)),$(or $(1),(empty)))
ifneq ($(call not-set,$(GPU)),)
$(error GPU=$(GPU): not a measurement set's name: GPU is one word of A-Z, a-z, 0-9, '.', '_' and '-', not starting with '.')
endif
COMMITTED := $(patsubst measurements/%/,%,$(wildcard measurements/*/))
ifneq ($(strip $(foreach s,$(COMMITTED),$(call not-set,$(s)))),)
$(error measurements/$(firstword $(foreach s,$(COMMITTED),$(call not-set,$(s)))): not a measurement set's name: rename the folder to one word of A-Z, a-z, 0-9, '.', '_' and '-')
endif
SETS := $(sort $(GPU) $(COMMITTED))
VALUES := build/values/$(GPU).tsv
# $(call sfx,SET): what the names of SET's pages, figures and PDF carry before their extension.
sfx = $(if $(filter $(GPU),$(1)),,.$(1))
# A file in tangled/ with a name no root may have is a leftover for tangle.sh to remove, not a target.
TANGLED := $(wildcard $(foreach f,$(filter tangled/%,$(wildcard tangled/*)),$(if $(filter-out .,$(suffix $f)),$(if \
             $(call unsafe,$(basename $(notdir $f)),$(alnum) _ -)$(call unsafe,$(suffix $f),$(alnum) .),,$f))))
PROGRAMS := $(basename $(notdir $(filter %.cu,$(TANGLED))))
FIGURES := $(basename $(notdir $(wildcard figures/*.gp)))
ARCH ?= sm_90
NVCC ?= nvcc
NVCCFLAGS ?= -arch=$(ARCH) -Werror all-warnings
CC ?= cc
CFLAGS ?= -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror -pedantic
NWLIB ?= /usr/lib/noweb
# Where noweb is missing (the GPU machine), the committed tangled/ is used as it is.
NOWEB := $(wildcard $(NWLIB)/nt)
PANDOC ?= pandoc
T := build/tools
WEAVE_TOOLS := $(T)/nwmarkup $(T)/cudadefs $(T)/nw2md
# Every page of the site: each set's chapters, front page and measurements page.
SITE_PAGES := $(foreach s,$(SETS),$(foreach p,$(SLUGS) index measurements,$(p)$(call sfx,$(s))))
MD := $(SLUGS:%=build/md/%.md)
# run.sh calls make itself; named so, make -n does not run it as a recursive make.
SUBMAKE := $(MAKE)
# $(call quote,TEXT) is TEXT as one shell word, whatever it holds.
quote = '$(subst ','\'',$(1))'
# A command's output goes to $@.tmp; this renames it into place, or drops it when the command failed.
INTO_PLACE = && mv $@.tmp $@ || { rm -f $@.tmp; exit 1; }

.PHONY: all tangle html pdf weave programs compile run check claims browsercheck pdfcheck bench deps clean FORCE

# Tangle, then weave the HTML site and the PDF.
all: html pdf

# Extract every root file of the chapters into tangled/ (unchanged files keep their timestamps).
tangle: build/tangle.stamp

# Weave the HTML site only (build/html/): an author's edit loop, no TeX.
html: $(SITE_PAGES:%=build/html/%.html) $(foreach s,$(SETS),$(FIGURES:%=build/html/%$(call sfx,$(s)).svg)) \
      build/html/style.css build/html/.pruned

# Weave the PDF: build/book.pdf of the set GPU=, and each set's PDF for the site.
pdf: build/book.pdf $(foreach s,$(SETS),build/html/book$(call sfx,$(s)).pdf)

# Both: the HTML site and the PDF.
weave: html pdf

# Compile every tangled program into build/bin/ (ARCH=sm_90 by default; no GPU needed).
programs: $(NOWEB:%=tangle)
	@$(SUBMAKE) --no-print-directory compile

# The compile step of programs, once tangled/ is current (its list is read after tangling).
compile: $(PROGRAMS:%=build/bin/%)

# Run every program and session on this machine's GPU and record them in measurements/ (RUNS, TIMEOUT, FORCE, ONLY).
run: $(NOWEB:%=tangle)
	MAKE=$(call quote,$(SUBMAKE)) NVCC=$(call quote,$(NVCC)) \
	  GPU=$(call quote,$(if $(filter command line environment override,$(origin GPU)),$(GPU))) scripts/gpu/run.sh

# The test suite; it needs no GPU.
check:
	tests/run

# Check every claim and directive of the chapters against the set GPU=$(GPU).
claims: $(MD) $(VALUES) $(SLUGS:%=build/meta/%.yaml)
	for s in $(SLUGS); do \
	  $(PANDOC) --defaults=book/html.yaml --metadata-file=build/meta/$$s.yaml -M source=book/$$s.nw \
	    -M values=$(VALUES) -M check=true -t native -o /dev/null build/md/$$s.md; done

# Render every HTML page in headless Chromium (links, images, console, phone width), with screenshots.
browsercheck: html pdf
	scripts/check/browsercheck.sh build/html build/screenshots

# Render every PDF page and check the TeX log for overfull lines, wrapped code and highlighting.
pdfcheck: pdf
	scripts/check/pdfcheck.sh build/book.pdf build/pdf/$(GPU)/book.log build/pdf/$(GPU)/book.tex build/pdfpages

# Time a clean build, a no-op build and a prose edit, counting nvcc, pandoc and TeX runs (notes/bench.md).
bench:
	scripts/dev/bench.sh

# Install every Debian package the book and its tests need (as root; quick when all is there).
deps:
	scripts/dev/deps.sh

# Remove everything generated except tangled/ and the measurements, which are committed.
clean:
	rm -rf build

# --- settings that outputs depend on ----------------------------------------------------------
# build/setting-NAME holds the value of NAME and is rewritten only when that changes, so that
# GPU=t4 re-weaves, new NVCCFLAGS recompile and a removed chapter leaves the book. Make itself
# compares (it reads the file; nothing runs while the Makefile is read).
define remember
ifneq ($$(file <build/setting-$(1)),$$($(1)))
build/setting-$(1): FORCE
endif
endef
$(foreach v,GPU SETS NVCCFLAGS CHAPTERS SOURCE_DATE_EPOCH,$(eval $(call remember,$(v))))
# An empty SOURCE_DATE_EPOCH is no date: fontconfig, building its cache, says so, and gnuplot with it.
ifneq ($(SOURCE_DATE_EPOCH),)
export SOURCE_DATE_EPOCH
else
unexport SOURCE_DATE_EPOCH
endif
build/setting-%:
	mkdir -p build
	printf '%s\n' $(call quote,$($*)) > $@

# --- tools ------------------------------------------------------------------------------------
$(T)/%: scripts/book/%.c | $(T)
	$(CC) $(CFLAGS) -o $@ $< -lm
$(T) build/bin build/md build/meta build/values build/html $(SETS:%=build/pdf/%):
	mkdir -p $@

# --- tangling: the committed tangled/ is used as it is where noweb is missing (the GPU machine) --
# The sources' hashes are written with it (and only when they change), as the records' freshness
# is judged by them.
build/tangle.stamp: $(CHAPTERS) build/setting-CHAPTERS $(wildcard tangled) $(T)/nwmarkup $(T)/nwcheck scripts/book/tangle.sh
	mkdir -p build
	TOOLS=$(T) NWLIB=$(NWLIB) scripts/book/tangle.sh tangled $(CHAPTERS)
	find tangled -maxdepth 1 -type f -print0 | sort -z | xargs -0r sha256sum > build/tangled.sha256.tmp
	cpif build/tangled.sha256 < build/tangled.sha256.tmp && rm build/tangled.sha256.tmp
	touch $@
build/tangled.sha256: build/tangle.stamp ;
ifneq ($(NOWEB),)
$(TANGLED): build/tangle.stamp ;
endif

# NVCCFLAGS are words as the shell quotes them, read by xargs, which runs nothing they hold.
# On a compile error, compile the #line copy too, so that the errors name book/*.nw lines.
build/bin/%: tangled/%.cu build/setting-NVCCFLAGS | build/bin
	xargs $(NVCC) -o $@ $< < build/setting-NVCCFLAGS || { [ -n "$(NOWEB)" ] && [ -x $(T)/nwmarkup ] || exit 1; mkdir -p build/lines; \
	  TOOLS=$(T) NWLIB=$(NWLIB) scripts/book/tangle.sh --lines $*.cu $(CHAPTERS) > build/lines/$*.cu && \
	  echo "$<: the same errors, at their lines in the book:" >&2; \
	  xargs $(NVCC) -o /dev/null build/lines/$*.cu < build/setting-NVCCFLAGS; exit 1; }

# --- weaving ----------------------------------------------------------------------------------
# The book is one web, so every chapter's Markdown is written from the whole book's pipeline;
# cpif replaces only the files that changed, so a prose edit re-weaves that chapter alone.
build/md/.stamp: $(CHAPTERS) build/setting-CHAPTERS $(WEAVE_TOOLS) | build/md
	$(T)/nwmarkup $(CHAPTERS) | $(T)/cudadefs | $(NWLIB)/finduses | $(NWLIB)/noidx > build/md/book.pipe
	for s in $(SLUGS); do $(T)/nw2md -c book/$$s.nw < build/md/book.pipe > build/md/$$s.tmp; \
	  cpif build/md/$$s.md < build/md/$$s.tmp; rm build/md/$$s.tmp; done
	touch $@
$(MD): build/md/.stamp ;

# Each page's contents, previous and next; rewritten only when a title changes.
build/meta/.stamp: $(CHAPTERS) build/setting-CHAPTERS scripts/book/navmeta.sh | build/meta
	scripts/book/navmeta.sh build/meta $(CHAPTERS)
	touch $@
build/meta/%.yaml: build/meta/.stamp ;

HTML_DEPS := book/html.yaml book/template.html book/cuda.xml book/book.yaml scripts/book/directives.lua \
             build/setting-SETS build/setting-GPU
# The options that weave a page of set $(1): its values, its name's suffix, the other sets.
WEAVE_SET = -M values=build/values/$(1).tsv -M default-set=$(GPU) -M sets=$(call quote,$(SETS))

build/html/style.css: book/style.css | build/html
	cp $< $@

# A chapter or set that was removed or renamed leaves no page behind.
build/html/.pruned: build/setting-CHAPTERS build/setting-SETS build/setting-GPU | build/html
	for f in build/html/*.html; do [ -e "$$f" ] || continue; \
	  case " $(SITE_PAGES) " in *" $$(basename "$$f" .html) "*) ;; *) rm -f "$$f";; esac; done
	touch $@

build/book.pdf: build/pdf/$(GPU)/book.pdf build/setting-GPU
	cp $< $@

# --- one set: its values table, its pages and figures, its PDF ($(call set-rules,SET,SUFFIX)) -----
define set-rules
# The values: what the set's records say, and whether they still match tangled/.
build/values/$(1).tsv: $(T)/values build/tangled.sha256 $(wildcard measurements/$(1) measurements/$(1)/*.rec) | build/values
	$(T)/values measurements/$(1) build/tangled.sha256 > $$@.tmp $$(INTO_PLACE)

$(SLUGS:%=build/html/%$(2).html): build/html/%$(2).html: build/md/%.md build/meta/%.yaml build/values/$(1).tsv $(HTML_DEPS) | build/html
	$(PANDOC) --defaults=book/html.yaml --metadata-file=build/meta/$$*.yaml -M source=book/$$*.nw \
	  $(call WEAVE_SET,$(1)) -o $$@.tmp $$< $$(INTO_PLACE)

build/html/index$(2).html build/html/measurements$(2).html: build/html/%$(2).html: book/%.md build/meta/index.yaml \
                                                    build/values/$(1).tsv $(HTML_DEPS) | build/html
	$(PANDOC) --defaults=book/html.yaml --metadata-file=build/meta/index.yaml -M source=$$< \
	  $(call WEAVE_SET,$(1)) -o $$@.tmp $$< $$(INTO_PLACE)

# Figures: figures/NAME.gp drawn from the values table, SVG for the site and PDF for TeX. GPU= decides
# which set's figures and PDF carry no suffix, so they are remade when it changes.
$(FIGURES:%=build/html/%$(2).svg): build/html/%$(2).svg: figures/%.gp build/values/$(1).tsv scripts/book/figure.sh build/setting-GPU | build/html
	scripts/book/figure.sh $$< build/values/$(1).tsv $$@
build/pdf/$(1)/%.pdf: figures/%.gp build/values/$(1).tsv scripts/book/figure.sh | build/pdf/$(1)
	scripts/book/figure.sh $$< build/values/$(1).tsv $$@

# The PDF: pandoc writes one LaTeX file of every chapter, latexmk runs xelatex until it settles.
# (-M sets only lets messages name their set: the LaTeX does not depend on it.)
# The title page names the set and the day of its latest measurement, or SOURCE_DATE_EPOCH's day.
build/pdf/$(1)/book.tex: $(MD) build/values/$(1).tsv book/latex.yaml book/preamble.tex book/cuda.xml book/book.yaml \
                    scripts/book/directives.lua build/setting-CHAPTERS build/setting-SOURCE_DATE_EPOCH \
                    $(FIGURES:%=build/pdf/$(1)/%.pdf) | build/pdf/$(1)
	$(PANDOC) --defaults=book/latex.yaml -M values=build/values/$(1).tsv -M sets=$(call quote,$(SETS)) \
	  $(if $(SOURCE_DATE_EPOCH),-M date="$$$$(date -u -d "@$$$$SOURCE_DATE_EPOCH" +%Y-%m-%d)") -o $$@.tmp $(MD) $$(INTO_PLACE)

# The PDF's own dates are the same: the same records give the same PDF. (latexmk leaves a PDF
# whose sources' contents did not change as it was, so it is touched to be newer than book.tex.)
build/pdf/$(1)/book.pdf: build/pdf/$(1)/book.tex
	cd build/pdf/$(1) && SOURCE_DATE_EPOCH=$$$${SOURCE_DATE_EPOCH:-$$$$(date -d "$$$$(sed -n 's/^set\tdate\t//p' \
	  ../../values/$(1).tsv)" +%s 2>/dev/null || echo 0)} FORCE_SOURCE_DATE=1 latexmk -xelatex -interaction=nonstopmode -halt-on-error -quiet book.tex > book.out 2>&1 || { \
	  tail -n 30 book.out >&2; echo "build/pdf/$(1)/book.log: xelatex failed" >&2; exit 1; }
	touch $$@

build/html/book$(2).pdf: build/pdf/$(1)/book.pdf build/setting-GPU | build/html
	cp $$< $$@
endef
$(foreach s,$(SETS),$(eval $(call set-rules,$(s),$(call sfx,$(s)))))
