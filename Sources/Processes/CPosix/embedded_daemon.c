/* The embedded daemon: a binary that links HealthPairTesting can run as healthpaird before its own main. */
#define _GNU_SOURCE
#include "cposix.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The embedded daemon. HealthPairTesting defines this entry point (healthpaird's main); a binary that does not
   link HealthPairTesting has none, and the weak reference is then NULL. */
extern int healthpair_embedded_daemon_main(int argc, char **argv) __attribute__((weak));

/* Runs before main (glibc passes argc, argv and envp to the initialisers of the executable): when the harness
   launched this very binary as a daemon (HEALTHPAIRD_EMBEDDED=1, see
   Sources/Processes/PairProcesses/DaemonLocator.swift), it becomes healthpaird and exits, so the test runner's
   main never starts. No priority is given, so Swift's own image initialiser (linked first) has registered this
   image's metadata before this runs. */
__attribute__((constructor)) static void cposix_embedded_daemon_hook(int argc, char **argv, char **envp) {
  (void)envp;
  const char *flag = getenv(CPOSIX_EMBEDDED_DAEMON_VARIABLE);
  if (flag == NULL || strcmp(flag, "1") != 0 || healthpair_embedded_daemon_main == NULL) return;
  unsetenv(CPOSIX_EMBEDDED_DAEMON_VARIABLE);
  _exit(healthpair_embedded_daemon_main(argc, argv));
}

int cposix_embeds_daemon(void) { return healthpair_embedded_daemon_main != NULL; }
