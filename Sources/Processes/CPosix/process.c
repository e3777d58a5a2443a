/* Processes: pidfds, signals sent through them, and dying with the parent. */
#define _GNU_SOURCE
#include "cposix.h"
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int cposix_pidfd_open(int pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int cposix_exit_with_parent(int parent) {
  if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0) return -1;
  /* The parent may have died before prctl: then we were re-parented already. */
  return getppid() == parent ? 0 : 1;
}

int cposix_pidfd_send_signal(int pidfd, int signal) {
  return (int)syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0);
}
