// C declarations the Swift Glibc overlay does not expose (epoll, signalfd, eventfd, accept4, SO_PEERCRED, flock).
// Only Sources/Posix imports this module: it is part of the project's single syscall seam.
#ifndef CPOSIX_H
#define CPOSIX_H
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
ssize_t cposix_getrandom(void *buffer, size_t length);
int cposix_pidfd_open(int pid);
int cposix_pipe(int fds[2]);
int cposix_exit_with_parent(int parent);
int cposix_pin_to_cpu(int cpu);
int cposix_unpin(void);
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
