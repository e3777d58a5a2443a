// C declarations the Swift Glibc overlay does not expose (epoll, signalfd, eventfd, accept4, SO_PEERCRED, flock).
// Only Sources/Processes/Posix imports this module: it is part of the project's single syscall seam. Each section
// names the file that implements it. Unless a comment says otherwise, a function returns what its syscall returns
// (-1 with errno on failure).
#ifndef CPOSIX_H
#define CPOSIX_H
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- epoll.c ---- */
/* A close-on-exec epoll instance. */
int cposix_epoll_create(void);
/* Adds, modifies or deletes (`op`: CPOSIX_EPOLL_CTL_*) `fd` in the interest list, reporting `events` with `token`. */
int cposix_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token);
/* Waits up to `timeout_ms` (-1: forever) for at most `max` (at most 256) events; fills `tokens` and `events` and
   returns how many, or -1 (errno). */
int cposix_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int max, int timeout_ms);

/* ---- descriptors.c ---- */
/* Accepts a connection on `fd` as a close-on-exec, non-blocking descriptor. */
int cposix_accept4(int fd);
/* The pid, uid and gid of the process at the other end of Unix socket `fd`. */
int cposix_peercred(int fd, int32_t *pid, uint32_t *uid, uint32_t *gid);
/* Takes an exclusive lock on `fd` without waiting (`exclusive_nonblocking` non-zero), or releases it. */
int cposix_flock(int fd, int exclusive_nonblocking);
/* A close-on-exec, non-blocking eventfd starting at 0. */
int cposix_eventfd(void);
/* A non-blocking inotify descriptor watching `path` for entries created or moved into it. */
int cposix_watch_directory(const char *path);
/* A close-on-exec pipe: fds[0] reads, fds[1] writes. */
int cposix_pipe(int fds[2]);
/* A close-on-exec pair of connected SOCK_SEQPACKET Unix sockets. */
int cposix_socketpair_seqpacket(int fds[2]);

/* ---- signals.c ---- */
/* Blocks `signals` in the calling thread and returns a close-on-exec, non-blocking signalfd for them. */
int cposix_signalfd(const int *signals, int count);
/* The number of the next signal read from signalfd `fd`, or -1 when none could be read. */
int cposix_read_signal(int fd);
/* Installs a handler for each of `signals` (count at most 8) that writes the signal's number, one byte, to a pipe,
   and returns the pipe's read end (blocking, close-on-exec); the handler is async-signal-safe and keeps errno.
   With `only_if_default`, a signal whose disposition is not SIG_DFL keeps it (bit i of *installed says which
   were installed). Once per process: later calls return the same read end. -1 (errno) on failure. */
int cposix_signal_pipe(const int *signals, int count, int only_if_default, int *installed);
/* Gives `signal` back its default disposition, unblocks it and raises it in the calling thread. */
void cposix_raise_default(int signal);

/* ---- random.c ---- */
/* getrandom(2) with no flags: `length` random bytes into `buffer`. */
ssize_t cposix_getrandom(void *buffer, size_t length);
/* Fills `buffer` with `length` (at most 4096) random bytes from a per-process pool the kernel refills; never the same
   bytes twice, in this process or a forked child. 0, or -1 (errno) when getrandom fails. */
int cposix_random_pooled(void *buffer, size_t length);
/* For tests of the pool, in a forked single-threaded process so no other thread draws meanwhile: starts a fresh pool,
   draws from it, forks a child that draws `length` (at most 256) bytes into `child_first`, then draws `length` bytes
   into `parent_next` after it. 0, or -1 when a step failed. */
int cposix_random_pool_across_fork(void *parent_next, void *child_first, size_t length);

/* ---- process.c ---- */
/* A pidfd for process `pid`. */
int cposix_pidfd_open(int pid);
/* Sends `signal` to the process `pidfd` refers to (never to a recycled pid). */
int cposix_pidfd_send_signal(int pidfd, int signal);
/* Asks for SIGTERM when the parent dies; 0 when `parent` is still the parent, 1 when it is gone already, -1 (errno)
   on failure. */
int cposix_exit_with_parent(int parent);

/* ---- affinity.c ---- */
/* Pins the calling thread to one CPU; the first pin remembers the mask it replaced (the process's own). */
int cposix_pin_to_cpu(int cpu);
/* Gives the calling thread back the mask the first pin replaced (every online CPU when nothing was pinned). */
int cposix_unpin(void);
/* Pins every thread of process `pid` to one CPU. */
int cposix_pin_process(int pid, int cpu);
/* Gives a thread about to be created the process's own mask once anything was pinned, so a thread started from a
   pinned thread (and whatever it spawns) does not inherit that pin; does nothing otherwise. */
int cposix_thread_attr_unpinned(pthread_attr_t *attributes);

/* ---- zygote.c ---- */
/* The zygote (see zygote.c): serve spawn and status requests on `control` until it closes, forking a process that
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

/* ---- embedded_daemon.c ---- */
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
