/* shim.c -- a logging stand-in for the commands on PATH while make check runs (tests/run).
 *
 * `shim --link DIR < NAMES` makes DIR/NAME a link to this program for each NAME read, one a line;
 * tests/run puts DIR first on the PATH. Run as NAME, the program appends "TEST NAME" to $SHIM_LOG
 * (TEST is $SHIM_TEST, the test that ran it) and runs the first NAME of $SHIM_PATH (the PATH before
 * the shims), so that deps.test can ask which package owns each command the tests ran. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *name = strrchr(argv[0], '/'), *log = getenv("SHIM_LOG"), *path = getenv("SHIM_PATH"),
               *test = getenv("SHIM_TEST");
    char real[PATH_MAX];

    name = name ? name + 1 : argv[0];
    if (argc == 3 && strcmp(argv[1], "--link") == 0) {  /* one process for a thousand links */
        char line[NAME_MAX + 2];
        while (fgets(line, sizeof line, stdin)) {
            line[strcspn(line, "\n")] = '\0';
            if (snprintf(real, sizeof real, "%s/%s", argv[2], line) >= (int)sizeof real || symlink("../.shim", real) != 0) {
                fprintf(stderr, "shim: cannot link %s: %s\n", real, strerror(errno));
                return 1;
            }
        }
        return 0;
    }
    if (log) {  /* one write of one short line: lines of concurrent tests do not mix */
        int fd = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);
        if (fd >= 0) {
            dprintf(fd, "%s %s\n", test ? test : "-", name);
            close(fd);
        }
    }
    for (const char *p = path ? path : ""; *p; p += *p == ':') {
        size_t n = strcspn(p, ":");
        if (n > 0 && snprintf(real, sizeof real, "%.*s/%s", (int)n, p, name) < (int)sizeof real &&
            access(real, X_OK) == 0) {
            argv[0] = real;  /* the real path, as a shell gives a command found on PATH */
            execv(real, argv);
            fprintf(stderr, "shim: %s: %s\n", real, strerror(errno));
            return 126;
        }
        p += n;
    }
    fprintf(stderr, "shim: %s: not found on SHIM_PATH\n", name);
    return 127;
}
