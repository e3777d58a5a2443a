/* Descriptors made close-on-exec (and non-blocking where a loop polls them) in one call: accepted connections,
   pipes, seqpacket pairs, eventfds and inotify watches; a peer's credentials; advisory file locks. */
#define _GNU_SOURCE
#include "cposix.h"
#include <errno.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <unistd.h>

int cposix_accept4(int fd) { return accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK); }

int cposix_peercred(int fd, int32_t *pid, uint32_t *uid, uint32_t *gid) {
  struct ucred credentials;
  socklen_t length = sizeof credentials;
  int rc = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length);
  if (rc == 0) {
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
  }
  return rc;
}

int cposix_flock(int fd, int exclusive_nonblocking) {
  return flock(fd, exclusive_nonblocking ? (LOCK_EX | LOCK_NB) : LOCK_UN);
}

int cposix_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

int cposix_watch_directory(const char *path) {
  int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (fd < 0) return -1;
  if (inotify_add_watch(fd, path, IN_CREATE | IN_MOVED_TO) < 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

int cposix_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int cposix_socketpair_seqpacket(int fds[2]) { return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds); }
