# Makefile -- builds the book: tangles the chapters, weaves the HTML site and the PDF, compiles and runs the programs.
#
# Data flows one way (notes/design.md): book/*.nw -> tangled/ -> build/bin -> measurements/ ->
# build/values -> build/html, build/book.pdf. scripts/book/names.mk reads and checks the names
# (chapters, sets, settings) before any rule; bash runs the recipes, so that a failing stage of a
# pipeline fails its recipe.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -ec
.DELETE_ON_ERROR:
.SUFFIXES:
include scripts/book/names.mk
ARCH ?= sm_90
NVCC ?= nvcc
NVCCFLAGS ?= -arch=$(ARCH) $(file <scripts/gpu/nvccflags)
CC ?= cc
CFLAGS ?= -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror -pedantic
NWLIB ?= /usr/lib/noweb
# Where noweb is missing (the GPU machine), tangled/ is used as it is.
NOWEB := $(wildcard $(NWLIB)/nt)
PANDOC ?= pandoc
# pandoc's runtime (GHC's) collects its old generation when it has grown to four times what the last
# collection left, not twice: about a tenth less CPU a page, the same pages.
export GHCRTS ?= -F4
T := build/tools
# Every page of the site: each set's chapters, front page and measurements page; the pages' scripts.
SITE_JS := build/html/book.js build/html/lunr.js build/html/bookdata.js
LUNR ?= /usr/share/javascript/lunr/lunr.min.js
PAGES = $(foreach s,$(SETS),$(addsuffix $(call sfx,$(s)).html,$(addprefix build/html/,$(SLUGS) $(PARTS) index measurements)))
.PHONY: all tangle html pdf weave programs run check claims browsercheck pdfcheck bench preview deps clean FORCE

# Tangle, then weave the HTML site and the PDF.
all: weave

# Both: the HTML site and the PDF.
weave: html pdf

# Extract every root file of the chapters into tangled/ (unchanged files keep their timestamps).
tangle: $(if $(NOWEB),build/chapters.mk)

# Weave the HTML site only (build/html/): an author's edit loop, no TeX.
html: $(PAGES) $(foreach s,$(SETS),$(FIGURES:%=build/html/%$(call sfx,$(s)).svg)) build/html/style.css build/html/.pruned \
      $(SITE_JS) $(filter %.cu %.sh,$(TANGLED:%=build/html/%))

# Weave the PDF: build/book.pdf of the set GPU=, and each set's PDF for the site.
pdf: build/book.pdf $(foreach s,$(SETS),build/html/book$(call sfx,$(s)).pdf)

# Compile every tangled program into build/bin/ (ARCH=sm_90 by default; no GPU needed).
programs: tangle $(PROGRAMS:%=build/bin/%)

# Run every program and session on this machine's GPU and record them in measurements/ (RUNS, TIMEOUT,
# FORCE, ONLY, CHAPTER); it compiles them with -arch=native first.
run: tangle
	MAKE=$(call quote,$(MAKE)) NVCC=$(call quote,$(NVCC)) FLAGS=$(call quote,-arch=native $(file <scripts/gpu/nvccflags)) \
	  GPU=$(call quote,$(if $(filter command line environment override,$(origin GPU)),$(GPU))) scripts/gpu/run.sh

# The test suite; it needs no GPU.
check:
	tests/run

# Check every claim and directive of the chapters against the set GPU=$(GPU), a chapter at a time.
claims: $(SLUGS:%=build/claims/$(GPU)/%.ok)

# Render every HTML page in headless Chromium (links, images, console, phone width), with screenshots.
browsercheck: html pdf
	scripts/check/browsercheck.py build/html build/screenshots

# Render every PDF page and check the TeX log for overfull lines, wrapped code and highlighting.
pdfcheck: pdf
	scripts/check/pdfcheck.sh build/book.pdf build/pdf/$(GPU)/book.log build/pdf/$(GPU)/book.tex build/pdfpages

# Serve build/html/ on localhost (PORT=8000), weave what changed on every save, and reload the open page.
preview:
	MAKE=$(call quote,$(MAKE)) scripts/dev/preview.sh

# Time a clean build, a no-op build and a prose edit, counting nvcc, pandoc and TeX runs (notes/bench.md).
bench:
	scripts/dev/bench.sh

# Install every Debian package the book and its tests need (as root; quick when all is there).
deps:
	scripts/dev/deps.sh

# Remove everything generated except tangled/ and the measurements, which are committed.
clean:
	rm -rf build

# --- helpers and settings ---------------------------------------------------------------------
# $(call quote,TEXT) is TEXT as one shell word, whatever it holds.
quote = '$(subst ','\'',$(1))'
# $(call into-place,COMMAND): COMMAND writes $(TMP), a hidden name of this shell's own (its PID), which is
# renamed to $@ if it succeeds and removed otherwise, interrupted too (and with it $(TMP).*, for its own
# temporaries): no half-written target, nothing that a make beside this one writes, nothing left behind.
TMP = $(@D)/.$(@F).$$$$.tmp
into-place = trap 'rm -f $(TMP) $(TMP).*' EXIT && $(1) && mv $(TMP) $@
# build/setting-NAME holds the value of NAME and is rewritten only when that changes, so that GPU=t4
# re-weaves, new NVCCFLAGS recompile and a removed chapter leaves the book. Make itself compares (it
# reads the file, blanks aside: make 4.3 keeps the last newline of a long one; nothing runs while the
# Makefile is read).
define remember
ifneq ($$(strip $$(file <build/setting-$(1))),$$(strip $$($(1))))
build/setting-$(1): FORCE
endif
endef
$(foreach v,GPU SETS NVCCFLAGS CHAPTERS TANGLED SOURCE_DATE_EPOCH,$(eval $(call remember,$(v))))
build/setting-%:
	mkdir -p build
	$(call into-place,printf '%s\n' $(call quote,$($*)) > $(TMP))
# An empty SOURCE_DATE_EPOCH is no date: fontconfig, building its cache, says so, and gnuplot with it.
$(if $(SOURCE_DATE_EPOCH),$(eval export SOURCE_DATE_EPOCH),$(eval unexport SOURCE_DATE_EPOCH))

# --- tools ------------------------------------------------------------------------------------
$(T)/%: scripts/book/%.c scripts/book/tool.h | $(T)
	$(CC) $(CFLAGS) -o $@ $< -lm
$(T) build/bin build/md build/meta build/values build/html $(SETS:%=build/pdf/%) $(SETS:%=build/claims/%):
	mkdir -p $@

# --- the chapters: tangled/, their Markdown and their navigation -----------------------------------
# What make derives from the chapters alone it writes as it reads this Makefile: build/chapters.mk is
# remade by tangling and by weaving every chapter's Markdown, and make then reads the Makefile again,
# seeing tangled/, build/md/ and build/meta/ as they are. A file that did not change keeps its time
# (cmp), so a prose edit re-weaves that chapter alone and leaves nothing older than its sources.
# Goals that need none of it skip it; -n and -t, which run nothing, read it only once it was made
# (and, like make's own makefiles, bring it up to date), and before that see it as a rule.
MD := $(SLUGS:%=build/md/%.md)
META := $(SLUGS:%=build/meta/%.yaml) build/meta/index.yaml
WEAVE_TOOLS := $(T)/nwmarkup $(T)/cudadefs $(T)/nw2md
ifneq ($(NOWEB),)
ifneq ($(filter-out clean deps check bench preview,$(or $(MAKECMDGOALS),all)),)
ifneq ($(wildcard build/chapters.mk)$(if $(findstring n,$(firstword -$(MAKEFLAGS)))$(findstring t,$(firstword -$(MAKEFLAGS))),,yes),)
include build/chapters.mk
else
$(MD) $(META) $(TANGLED): build/chapters.mk ;
endif
endif
endif
# (Woven first: a chapter that is refused there, for want of a title, changes nothing in tangled/.)
build/chapters.mk: $(CHAPTERS) build/setting-CHAPTERS $(wildcard tangled) $(WEAVE_TOOLS) scripts/book/tangle.sh \
                   scripts/book/navmeta.sh $(if $(filter-out $(wildcard $(MD) $(META)),$(MD) $(META)),FORCE) | build/md build/meta
	$(call into-place,$(T)/nwmarkup $(CHAPTERS) | $(T)/cudadefs | $(NWLIB)/finduses | $(NWLIB)/noidx > $(TMP).pipe && \
	  for s in $(SLUGS); do $(T)/nw2md -c book/$$s.nw < $(TMP).pipe > $(TMP).md && \
	  { cmp -s $(TMP).md build/md/$$s.md || mv $(TMP).md build/md/$$s.md; } || exit; done && \
	  TOOLS=$(T) NWLIB=$(NWLIB) scripts/book/tangle.sh tangled $(CHAPTERS) && \
	  { echo '# build/chapters.mk -- what make derived from the chapters is current (Makefile)'; \
	    scripts/book/navmeta.sh build/meta $(MD); } > $(TMP))
# The records' freshness is judged by the hashes of tangled/, written when a file of it changes.
build/tangled.sha256: $(TANGLED) build/setting-TANGLED
	$(call into-place,$(if $(TANGLED),sha256sum $(TANGLED),:) > $(TMP))

# NVCCFLAGS are words as the shell quotes them, read by xargs, which runs nothing they hold. A failed
# compile leaves no binary behind (make run measures no old one); on a compile error, the #line copy
# is compiled too, so that the errors name book/*.nw lines.
build/bin/%: tangled/%.cu build/setting-NVCCFLAGS | build/bin
	rm -f $@
	xargs $(NVCC) -o $@ $< < build/setting-NVCCFLAGS || { [ -n "$(NOWEB)" ] && [ -x $(T)/nwmarkup ] || exit 1; \
	  trap 'rm -f $(TMP).cu' EXIT; TOOLS=$(T) NWLIB=$(NWLIB) scripts/book/tangle.sh --lines $*.cu $(CHAPTERS) > $(TMP).cu && \
	  echo "$<: the same errors, at their lines in the book:" >&2; \
	  xargs $(NVCC) -o /dev/null $(TMP).cu < build/setting-NVCCFLAGS; exit 1; }

# --- weaving ----------------------------------------------------------------------------------
HTML_DEPS := book/html.yaml book/template.html book/cuda.xml book/book.yaml $(wildcard scripts/book/filters/*.lua) \
             build/setting-SETS build/setting-GPU
# The options that weave a page of set $(1): its values, its name's suffix, the other sets.
WEAVE_SET = -M values=build/values/$(1).tsv -M default-set=$(GPU) -M sets=$(call quote,$(SETS))
# A page of chapter SLUG, with the navigation build/meta/PAGE.yaml, in set SET: $(call weave-chapter,SLUG,PAGE,SET).
# Its sections are numbered from the chapter's place in the book, as the PDF's are.
weave-chapter = $(PANDOC) --defaults=book/html.yaml --section-divs --number-sections --number-offset=$(CHAPTER_BEFORE_$(1)) \
  --metadata-file=build/meta/$(2).yaml -M source=book/$(1).nw $(call WEAVE_SET,$(3))

build/html/style.css build/html/book.js: build/html/%: book/% | build/html
	cp $< $@
# The pages' scripts (book/book.js) load the search index and the chunks when a reader first needs them:
# lunr (Debian's libjs-lunr) and build/html/bookdata.js, built from every page of every set.
build/html/lunr.js: $(LUNR) | build/html
	cp $< $@
# Each program as a file of the site, which its root chunk's header links to.
build/html/tangled/%: tangled/%
	mkdir -p $(@D) && cp $< $@

# A chapter, set, page of its own or program that was removed or renamed leaves no page or file behind.
build/html/.pruned: build/setting-CHAPTERS build/setting-SETS build/setting-GPU build/setting-PARTS build/setting-TANGLED | build/html
	for f in build/html/*.html build/html/tangled/*; do [ -e "$$f" ] || continue; \
	  case " $(PAGES) $(TANGLED:%=build/html/%) " in *" $$f "*) ;; *) rm -f "$$f";; esac; done
	touch $@

build/book.pdf: build/pdf/$(GPU)/book.pdf build/setting-GPU
	cp $< $@

# A chapter's page numbers its sections from the chapter's place in the book, as the PDF does:
# CHAPTER_BEFORE_SLUG is the number of chapters before it.
$(foreach s,$(SLUGS),$(eval CHAPTER_BEFORE_$(s) := $(words $(CHAPTERS_BEFORE)))$(eval CHAPTERS_BEFORE += $(s)))

# latexmk runs TeX in a folder of its own, build/pdf/SET/.tex.XXXXXX, given the LaTeX, the figures and what
# the last run that succeeded left (book.aux, book.toc, latexmk's book.fdb_latexmk...); only a run that
# succeeds moves what it wrote into place (a failed one, the log it wrote, newer than the LaTeX): after an
# interrupted xelatex, which latexmk would record as these sources' failure for good, or beside another
# make, the next run trusts nothing it did not write. (latexmk leaves a PDF whose sources did not change as it was: it is touched.)
run-latexmk = run=$$(mktemp -d $(@D)/.tex.XXXXXX) && trap 'rm -rf "$$run"' EXIT && cp -p $(@D)/book.* $(FIGURES:%=$(@D)/%.pdf) "$$run" && \
  { SOURCE_DATE_EPOCH=$$(cat $(@D)/date) FORCE_SOURCE_DATE=1 latexmk -cd -xelatex -interaction=nonstopmode -halt-on-error \
    -quiet "$$run/book.tex" > "$$run/book.out" 2>&1 || { tail -n 30 "$$run/book.out" >&2; [ ! "$$run/book.log" -nt "$$run/book.tex" ] || \
    mv -f "$$run/book.log" $(@D); echo "$(@D)/book.log: xelatex failed" >&2; exit 1; }; } && \
  rm "$$run/book.tex" && mv -f "$$run"/book.* $(@D) && touch $@

# --- one set: its values table, claims, pages and figures, and PDF ($(call set-rules,SET,SUFFIX)) --
define set-rules
# The values: what the set's records say, and whether they still match tangled/.
build/values/$(1).tsv: $(T)/values build/tangled.sha256 $(wildcard measurements/$(1) measurements/$(1)/*.rec) | build/values
	$$(call into-place,$(T)/values measurements/$(1) build/tangled.sha256 > $$(TMP))

# A chapter's claims hold against the set when every directive resolves in check mode.
build/claims/$(1)/%.ok: build/md/%.md build/meta/%.yaml build/values/$(1).tsv $(HTML_DEPS) | build/claims/$(1)
	$(PANDOC) --defaults=book/html.yaml --metadata-file=build/meta/$$*.yaml -M source=book/$$*.nw \
	  $(call WEAVE_SET,$(1)) -M check=true -t native -o /dev/null $$< && touch $$@

$(SLUGS:%=build/html/%$(2).html): build/html/%$(2).html: build/md/%.md build/meta/%.yaml build/values/$(1).tsv $(HTML_DEPS) | build/html
	$$(call into-place,$$(call weave-chapter,$$*,$$*,$(1)) -o $$(TMP) $$<)

build/html/index$(2).html build/html/measurements$(2).html: build/html/%$(2).html: book/%.md build/meta/index.yaml \
                                                    build/values/$(1).tsv $(HTML_DEPS) | build/html
	$$(call into-place,$(PANDOC) --defaults=book/html.yaml --metadata-file=build/meta/index.yaml -M source=$$< \
	  $(call WEAVE_SET,$(1)) -o $$(TMP) $$<)

# Figures: figures/NAME.gp drawn from the values table, SVG for the site and PDF for TeX (what figures
# share, figures/*.gpi, they load). GPU= decides which set's figures and PDF carry no suffix, so they
# are remade when it changes.
$(FIGURES:%=build/html/%$(2).svg): build/html/%$(2).svg: figures/%.gp $(wildcard figures/*.gpi) build/values/$(1).tsv scripts/book/figure.sh build/setting-GPU | build/html
	scripts/book/figure.sh $$< build/values/$(1).tsv $$@
build/pdf/$(1)/%.pdf: figures/%.gp $(wildcard figures/*.gpi) build/values/$(1).tsv scripts/book/figure.sh | build/pdf/$(1)
	scripts/book/figure.sh $$< build/values/$(1).tsv $$@

# The book's date, in seconds since 1970: SOURCE_DATE_EPOCH's, or the set's latest measurement's. The
# title page shows its day, and the PDF's own dates are it: the same records give the same PDF.
build/pdf/$(1)/date: build/values/$(1).tsv build/setting-SOURCE_DATE_EPOCH | build/pdf/$(1)
	$$(call into-place,echo "$$$${SOURCE_DATE_EPOCH:-$$$$(date -d "$$$$(sed -n 's/^set\tdate\t//p' $$<)" +%s)}" > $$(TMP))

# The PDF: pandoc writes one LaTeX file of every chapter, latexmk runs xelatex until it settles (-M sets
# only lets messages name their set: the LaTeX does not depend on it).
build/pdf/$(1)/book.tex: $(MD) build/values/$(1).tsv build/pdf/$(1)/date book/latex.yaml book/preamble.tex book/cuda.xml \
                    book/book.yaml $(wildcard scripts/book/filters/*.lua) build/setting-CHAPTERS $(FIGURES:%=build/pdf/$(1)/%.pdf)
	$$(call into-place,$(PANDOC) --defaults=book/latex.yaml -M values=build/values/$(1).tsv -M sets=$(call quote,$(SETS)) \
	  -M date="$$$$(date -u -d @$$$$(cat build/pdf/$(1)/date) +%Y-%m-%d)" -o $$(TMP) $(MD))
build/pdf/$(1)/book.pdf: build/pdf/$(1)/book.tex
	$$(run-latexmk)

build/html/book$(2).pdf: build/pdf/$(1)/book.pdf build/setting-GPU | build/html
	cp $$< $$@
endef
$(foreach s,$(SETS),$(eval $(call set-rules,$(s),$(call sfx,$(s)))))

# A section of a chapter that is a page of its own (scripts/book/filters/parts.lua): its page
# SLUG-ID.html in set $(1) (suffix $(2)), from the chapter's Markdown ($(call part-rule,SET,SFX,SLUG-ID)).
define part-rule
build/html/$(3)$(2).html: build/md/$(PART_OF_$(3)).md build/meta/$(3).yaml build/values/$(1).tsv $(HTML_DEPS) | build/html
	$$(call into-place,$$(call weave-chapter,$(PART_OF_$(3)),$(3),$(1)) -M part=$(patsubst $(PART_OF_$(3))-%,%,$(3)) -o $$(TMP) $$<)
endef
$(foreach s,$(SETS),$(foreach p,$(PARTS),$(eval $(call part-rule,$(s),$(call sfx,$(s)),$(p)))))
$(eval $(call remember,PARTS))
# The pages again, PARTS included: html's rule above was read before build/chapters.mk defined it.
html: $(PAGES)
build/html/bookdata.js: $(PAGES) scripts/book/search.js $(LUNR)
	$(call into-place,LUNR=$(LUNR) node scripts/book/search.js $(PAGES) > $(TMP))
