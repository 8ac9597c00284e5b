# Makefile: build, run, test, bench, eval, fuzz, soak for askql (see README.md).
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -Wall -Wextra -Werror -Wno-unused-parameter -std=c11 -D_GNU_SOURCE \
           -fstack-protector-strong -D_FORTIFY_SOURCE=2
INCS     = -Iapp -I/usr/include/postgresql -I/usr/include/libxml2
LIBS     = -lfcgi -lpq -lcurl -lcjson -lxml2 -lpg_query -lxlsxwriter -lz -lcrypt -lpthread -lm
BUILD   ?= build

# Every .c under app/ is part of libaskql, except the two program entry points.
# The CLI's files are linked directly (not through the archive) so that each
# subcommand file is always pulled in, whatever the dispatch table references.
CLISRCS  = $(sort $(wildcard app/cli/*.c))
CLIOBJS  = $(CLISRCS:%.c=$(BUILD)/%.o)
MAINS    = $(CLISRCS) app/http/main.c
SRCS     = $(filter-out $(MAINS),$(sort $(wildcard app/*/*.c)))
OBJS     = $(SRCS:%.c=$(BUILD)/%.o)
TESTSRC  = $(sort $(wildcard tests/unit/test_*.c))
TESTBIN  = $(TESTSRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all deps run stop test unit bench eval fuzz soak clean
all: bin/askql bin/askql-fcgi $(TESTBIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) $(INCS) -MMD -MP -c $< -o $@

$(BUILD)/libaskql.a: $(OBJS)
	@rm -f $@
	ar rcs $@ $^

bin/askql: $(CLIOBJS) $(BUILD)/libaskql.a
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

bin/askql-fcgi: $(BUILD)/app/http/main.o $(BUILD)/libaskql.a
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libaskql.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) $(INCS) -o $@ $< $(BUILD)/libaskql.a $(LIBS) -lcmocka

-include $(OBJS:.o=.d) $(CLIOBJS:.o=.d) $(BUILD)/app/http/main.d

# Install Debian/npm dependencies when missing (idempotent, quiet when done).
deps:
	@bash scripts/deps.sh

run: deps all
	@bash scripts/run.sh

stop:
	@bash scripts/stop.sh

# Unit tests (under valgrind), integration tests against a throwaway stack,
# browser tests; ends with "N passed, N failed".
test: deps all
	@bash tests/run.sh

unit: all
	@bash tests/run.sh unit

bench: all
	@bash scripts/deps.sh bench
	@bash bench/run.sh

eval: deps all
	@bash scripts/eval.sh

fuzz: deps
	@bash tests/fuzz/run.sh long

soak: deps all
	@bash tests/soak.sh

clean:
	rm -rf $(BUILD) bin
