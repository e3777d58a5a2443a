/* Signals: a signalfd, the self-pipe a handler writes each signal's number to, and raising a signal with its
   default disposition. */
#define _GNU_SOURCE
#include "cposix.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

int cposix_signalfd(const int *signals, int count) {
  sigset_t set;
  sigemptyset(&set);
  for (int i = 0; i < count; i++) sigaddset(&set, signals[i]);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

int cposix_read_signal(int fd) {
  struct signalfd_siginfo info;
  ssize_t n = read(fd, &info, sizeof info);
  return n == (ssize_t)sizeof info ? (int)info.ssi_signo : -1;
}

static int cposix_signal_pipe_ends[2] = {-1, -1};
static pthread_mutex_t cposix_signal_pipe_lock = PTHREAD_MUTEX_INITIALIZER;

static void cposix_signal_to_pipe(int signal) {
  int saved = errno;
  unsigned char number = (unsigned char)signal;
  (void)!write(cposix_signal_pipe_ends[1], &number, 1);
  errno = saved;
}

int cposix_signal_pipe(const int *signals, int count, int only_if_default, int *installed) {
  if (count < 0 || count > 8) {
    errno = EINVAL;
    return -1;
  }
  pthread_mutex_lock(&cposix_signal_pipe_lock);
  if (cposix_signal_pipe_ends[0] < 0) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      pthread_mutex_unlock(&cposix_signal_pipe_lock);
      return -1;
    }
    /* A full pipe drops the byte rather than blocking the interrupted thread: one pending byte is enough. */
    fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK);
    cposix_signal_pipe_ends[0] = fds[0];
    cposix_signal_pipe_ends[1] = fds[1];
  }
  *installed = 0;
  for (int i = 0; i < count; i++) {
    struct sigaction current;
    if (sigaction(signals[i], NULL, &current) != 0) continue;
    if (current.sa_handler == cposix_signal_to_pipe) {
      *installed |= 1 << i;
      continue;
    }
    /* Someone else's handler (or SIG_IGN) stays, when asked. */
    if (only_if_default && ((current.sa_flags & SA_SIGINFO) || current.sa_handler != SIG_DFL)) continue;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = cposix_signal_to_pipe;
    action.sa_flags = SA_RESTART;
    sigfillset(&action.sa_mask);
    if (sigaction(signals[i], &action, NULL) == 0) *installed |= 1 << i;
  }
  int fd = cposix_signal_pipe_ends[0];
  pthread_mutex_unlock(&cposix_signal_pipe_lock);
  return fd;
}

void cposix_raise_default(int signal) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = SIG_DFL;
  sigaction(signal, &action, NULL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal);
  pthread_sigmask(SIG_UNBLOCK, &set, NULL);
  raise(signal);
}
