// C declarations the Swift Glibc overlay does not expose (epoll, signalfd, eventfd, accept4, SO_PEERCRED, flock).
// Only Sources/Posix imports this module: it is part of the project's single syscall seam.
#ifndef CPOSIX_H
#define CPOSIX_H
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

int cposix_epoll_create(void);
int cposix_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token);
int cposix_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int max, int timeout_ms);
int cposix_accept4(int fd);
int cposix_peercred(int fd, int32_t *pid, uint32_t *uid, uint32_t *gid);
int cposix_flock(int fd, int exclusive_nonblocking);
int cposix_eventfd(void);
int cposix_signalfd(const int *signals, int count);
int cposix_read_signal(int fd);
/* Installs a handler for each of `signals` (count at most 8) that writes the signal's number, one byte, to a pipe,
   and returns the pipe's read end (blocking, close-on-exec); the handler is async-signal-safe and keeps errno.
   With `only_if_default`, a signal whose disposition is not SIG_DFL keeps it (bit i of *installed says which
   were installed). Once per process: later calls return the same read end. -1 (errno) on failure. */
int cposix_signal_pipe(const int *signals, int count, int only_if_default, int *installed);
/* A non-blocking inotify descriptor watching `path` for entries created or moved into it. */
int cposix_watch_directory(const char *path);
/* Gives `signal` back its default disposition, unblocks it and raises it in the calling thread. */
void cposix_raise_default(int signal);
ssize_t cposix_getrandom(void *buffer, size_t length);
/* Fills `buffer` with `length` (at most 4096) random bytes from a per-process pool the kernel refills; never the same
   bytes twice, in this process or a forked child. 0, or -1 (errno) when getrandom fails. */
int cposix_random_pooled(void *buffer, size_t length);
/* For tests of the pool, in a forked single-threaded process so no other thread draws meanwhile: starts a fresh pool,
   draws from it, forks a child that draws `length` (at most 256) bytes into `child_first`, then draws `length` bytes
   into `parent_next` after it. 0, or -1 when a step failed. */
int cposix_random_pool_across_fork(void *parent_next, void *child_first, size_t length);
int cposix_pidfd_open(int pid);
int cposix_pipe(int fds[2]);
int cposix_exit_with_parent(int parent);
/* Pins the calling thread to one CPU; the first pin remembers the mask it replaced (the process's own). */
int cposix_pin_to_cpu(int cpu);
/* Gives the calling thread back the mask the first pin replaced (every online CPU when nothing was pinned). */
int cposix_unpin(void);
/* Pins every thread of process `pid` to one CPU. */
int cposix_pin_process(int pid, int cpu);
/* Gives a thread about to be created the process's own mask once anything was pinned, so a thread started from a
   pinned thread (and whatever it spawns) does not inherit that pin; does nothing otherwise. */
int cposix_thread_attr_unpinned(pthread_attr_t *attributes);
/* The zygote (see cposix.c): serve spawn and status requests on `control` until it closes, forking a process that
   runs `run(argc, argv)` (argv[0] = `program`) for each spawn. Returns 0 when the launcher is gone, -1 (errno)
   when `control` cannot be read. */
int cposix_zygote_serve(int control, int (*run)(int argc, char **argv), const char *program);
/* Asks the zygote on `control` to start a process with `arguments` (NUL-terminated strings, `length` bytes in all)
   and `fds` as its stdin, stdout and stderr; returns its pid and sets *pidfd, or -1 with errno. */
int cposix_zygote_spawn(int control, const char *arguments, size_t length, const int fds[3], int timeout_ms,
                        int *pidfd);
/* Asks the zygote how process `pid` is: 0 running, 1 exited (*detail = code), 2 killed (*detail = signal),
   -1 unknown, -2 the request failed (errno). */
int cposix_zygote_status(int control, int pid, int timeout_ms, int *detail);
int cposix_socketpair_seqpacket(int fds[2]);
int cposix_pidfd_send_signal(int pidfd, int signal);
/* 1 when this binary embeds healthpaird (it links HealthPairTesting), else 0. */
int cposix_embeds_daemon(void);
/* The environment variable that makes a binary embedding healthpaird run as the daemon before its main. */
#define CPOSIX_EMBEDDED_DAEMON_VARIABLE "HEALTHPAIRD_EMBEDDED"

enum {
  CPOSIX_EPOLLIN = 0x001,
  CPOSIX_EPOLLOUT = 0x004,
  CPOSIX_EPOLLERR = 0x008,
  CPOSIX_EPOLLHUP = 0x010,
  CPOSIX_EPOLLRDHUP = 0x2000,
  CPOSIX_EPOLL_CTL_ADD = 1,
  CPOSIX_EPOLL_CTL_DEL = 2,
  CPOSIX_EPOLL_CTL_MOD = 3,
};
#endif
