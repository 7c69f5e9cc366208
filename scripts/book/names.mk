# names.mk -- the Makefile's names: the chapters, the sets and the settings, read and checked before any rule
# (notes/design.md, "Names"); a setting given on the command line or in the environment is text, never run.
$(foreach v,CHAPTERS GPU ARCH NVCC NVCCFLAGS SOURCE_DATE_EPOCH,$(if $(filter command line environment,\
  $(origin $(v))),$(eval override $(v) := $$(value $(v)))))
# $(call unsafe,TEXT,CHARS) is what TEXT holds besides CHARS.
lower := a b c d e f g h i j k l m n o p q r s t u v w x y z
digits := 0 1 2 3 4 5 6 7 8 9
alnum := $(lower) A B C D E F G H I J K L M N O P Q R S T U V W X Y Z $(digits)
unsafe = $(if $(2),$(call unsafe,$(subst $(firstword $(2)),,$(1)),$(wordlist 2,99,$(2))),$(1))

# Chapters: book/NN-slug.nw, the slug of a-z, 0-9 and -, in the order of NN.
CHAPTERS ?= $(sort $(wildcard book/[0-9][0-9]-*.nw))
SLUGS := $(basename $(notdir $(CHAPTERS)))
NN := $(foreach a,$(digits),$(addprefix $(a),$(digits)))
not-chapter = $(if $(and $(filter $(NN:%=book/%-%.nw),$(filter-out $(NN:%=book/%-.nw),$(1))),$(if \
                $(call unsafe,$(patsubst book/%.nw,%,$(1)),$(lower) $(digits) -),,ok)),,$(1))
# (the wildcard's own order, unlike CHAPTERS's sorted one, keeps the words of a name with blanks together)
BAD := $(strip $(foreach c,$(if $(filter file,$(origin CHAPTERS)),$(wildcard book/[0-9][0-9]-*.nw),$(CHAPTERS)),\
         $(call not-chapter,$(c))) $(filter-out $(wildcard book/[0-9][0-9]-*.nw),$(wildcard book/*.nw)))
$(if $(BAD),$(error $(BAD): not a chapter name: a chapter is book/NN-slug.nw, its slug made of a-z, 0-9 and -; \
  rename the file))
$(if $(CHAPTERS)$(if $(filter-out clean deps check bench preview,$(or $(MAKECMDGOALS),all)),,none needed),,$(error book/: no \
  chapters: a chapter is a file book/NN-slug.nw, and there is none to tangle or weave))
MISSING := $(filter-out $(wildcard $(CHAPTERS)),$(CHAPTERS))
$(if $(MISSING),$(error $(MISSING): no such chapter file; CHAPTERS names it, and chapters are book/NN-slug.nw))
$(if $(call unsafe,$(SOURCE_DATE_EPOCH),$(digits)),$(error SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH): expected a \
  number of seconds since 1970))

# Sets: every folder of measurements/, and GPU= (default: the one book/default-set names), each one
# word of A-Z, a-z, 0-9, '.', '_' and '-', not starting with '.'. GPU's pages are SLUG.html, another
# set's SLUG.SET.html ($(call sfx,SET) is what its names carry before their extension).
GPU ?= $(strip $(file <book/default-set))
not-set = $(if $(filter-out 1,$(words $(1))$(filter .%,$(1))$(call unsafe,$(1),$(alnum) . _ -)),$(or $(1),(empty)))
$(if $(call not-set,$(GPU)),$(error GPU=$(GPU): not a measurement set's name: GPU is one word of A-Z, a-z, 0-9, \
  '.', '_' and '-', not starting with '.'))
# A folder whose name holds blanks is several words, none of them measurements/NAME/ (a name has no '/').
COMMITTED := $(wildcard measurements/*/)
BADSET := $(or $(filter-out measurements/%/,$(COMMITTED)),$(firstword $(foreach s,$(COMMITTED),$(if $(call not-set,$(s:measurements/%/=%)),$s))))
$(if $(BADSET),$(error $(BADSET): not a measurement set's name: rename the folder to one word of \
  A-Z, a-z, 0-9, '.', '_' and '-'))
SETS := $(sort $(GPU) $(COMMITTED:measurements/%/=%))
sfx = $(if $(filter $(GPU),$(1)),,.$(1))

# tangled/: a file with a name no root may have is a leftover for tangle.sh to remove, not a target.
TANGLED := $(strip $(wildcard $(foreach f,$(filter tangled/%,$(wildcard tangled/*)),$(if $(filter-out .,$(suffix $f)),$(if \
             $(call unsafe,$(basename $(notdir $f)),$(alnum) _ -)$(call unsafe,$(suffix $f),$(alnum) .),,$f)))))
PROGRAMS := $(basename $(notdir $(filter %.cu,$(TANGLED))))
FIGURES := $(basename $(notdir $(wildcard figures/*.gp)))
