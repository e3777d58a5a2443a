/* The zygote: a loaded daemon that forks fresh daemons (Sources/Processes/Posix/Zygote.swift, docs/architecture.md).
   The launcher and the zygote talk over a SOCK_SEQPACKET pair, one request and one reply per message:
     spawn:  'S' then the arguments, each NUL-terminated, with SCM_RIGHTS carrying stdin, stdout and stderr;
             reply: pid (or -1) and errno, with SCM_RIGHTS carrying a pidfd of the new process on success.
     status: 'W' then a pid (int32); reply: state (0 running, 1 exited, 2 killed by a signal, -1 unknown) and the
             exit code or signal.
   The zygote reaps its children as requests arrive and remembers the last exits, so a status asked for after the
   process ended is still known. */
#define _GNU_SOURCE
#include "cposix.h"
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct cposix_zygote_reply {
  int32_t value;
  int32_t detail;
};

#define CPOSIX_ZYGOTE_MAX_MESSAGE 65536
#define CPOSIX_ZYGOTE_EXITS 1024

static struct {
  int32_t pid;
  int32_t status;
} cposix_zygote_exits[CPOSIX_ZYGOTE_EXITS];
static int cposix_zygote_next_exit;

static void cposix_zygote_remember(pid_t pid, int status) {
  cposix_zygote_exits[cposix_zygote_next_exit].pid = pid;
  cposix_zygote_exits[cposix_zygote_next_exit].status = status;
  cposix_zygote_next_exit = (cposix_zygote_next_exit + 1) % CPOSIX_ZYGOTE_EXITS;
}

static void cposix_zygote_reap_all(void) {
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) cposix_zygote_remember(pid, status);
}

static int cposix_zygote_send(int control, struct cposix_zygote_reply reply, int fd) {
  struct iovec iov = {.iov_base = &reply, .iov_len = sizeof reply};
  union {
    char buffer[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } control_buffer;
  struct msghdr message = {.msg_iov = &iov, .msg_iovlen = 1};
  if (fd >= 0) {
    memset(&control_buffer, 0, sizeof control_buffer);
    message.msg_control = control_buffer.buffer;
    message.msg_controllen = sizeof control_buffer.buffer;
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &fd, sizeof(int));
  }
  ssize_t n;
  do n = sendmsg(control, &message, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  return n == (ssize_t)sizeof reply ? 0 : -1;
}

static struct cposix_zygote_reply cposix_zygote_lookup(pid_t pid) {
  struct cposix_zygote_reply reply = {.value = -1, .detail = 0};
  int status;
  pid_t reaped = waitpid(pid, &status, WNOHANG);
  if (reaped == 0) {
    reply.value = 0;
    return reply;
  }
  int found = 0;
  if (reaped == pid) {
    cposix_zygote_remember(pid, status);
    found = 1;
  } else {
    for (int i = 1; i <= CPOSIX_ZYGOTE_EXITS && !found; i++) {
      int slot = (cposix_zygote_next_exit - i + CPOSIX_ZYGOTE_EXITS) % CPOSIX_ZYGOTE_EXITS;
      if (cposix_zygote_exits[slot].pid == pid) {
        status = cposix_zygote_exits[slot].status;
        found = 1;
      }
    }
  }
  if (!found) return reply;
  if (WIFEXITED(status)) {
    reply.value = 1;
    reply.detail = WEXITSTATUS(status);
  } else {
    reply.value = 2;
    reply.detail = WTERMSIG(status);
  }
  return reply;
}

int cposix_zygote_serve(int control, int (*run)(int argc, char **argv), const char *program) {
  static char buffer[CPOSIX_ZYGOTE_MAX_MESSAGE + 1];
  /* Whatever the warm-up blocked (the daemon's signalfd blocks SIGTERM and SIGINT), the zygote and its children
     start with no signal blocked. */
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  for (;;) {
    struct iovec iov = {.iov_base = buffer, .iov_len = CPOSIX_ZYGOTE_MAX_MESSAGE};
    union {
      char buffer[CMSG_SPACE(3 * sizeof(int))];
      struct cmsghdr align;
    } control_buffer;
    struct msghdr message = {
      .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control_buffer.buffer,
      .msg_controllen = sizeof control_buffer.buffer};
    ssize_t n = recvmsg(control, &message, MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return 0; /* The launcher is gone: nothing more to do. */
    if (n < 0) return -1;  /* Not a socket, or it failed: errno says why. */
    int fds[3] = {-1, -1, -1};
    int received = 0;
    for (struct cmsghdr *h = CMSG_FIRSTHDR(&message); h != NULL; h = CMSG_NXTHDR(&message, h)) {
      if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS) continue;
      int count = (int)((h->cmsg_len - CMSG_LEN(0)) / sizeof(int));
      for (int i = 0; i < count; i++) {
        int fd;
        memcpy(&fd, CMSG_DATA(h) + i * sizeof(int), sizeof fd);
        if (received < 3) fds[received++] = fd; else close(fd);
      }
    }
    cposix_zygote_reap_all();
    struct cposix_zygote_reply reply = {.value = -1, .detail = EINVAL};
    if (buffer[0] == 'W' && n == 1 + (ssize_t)sizeof(int32_t) && received == 0) {
      int32_t pid;
      memcpy(&pid, buffer + 1, sizeof pid);
      reply = cposix_zygote_lookup(pid);
      if (cposix_zygote_send(control, reply, -1) != 0) return 0;
      continue;
    }
    if (buffer[0] != 'S' || received != 3 || (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 ||
        buffer[n - 1] != '\0') {
      for (int i = 0; i < received; i++) close(fds[i]);
      if (cposix_zygote_send(control, reply, -1) != 0) return 0;
      continue;
    }
    buffer[n] = '\0';
    /* argv: the program, then each NUL-terminated argument after the kind byte. */
    int argc = 1;
    for (ssize_t i = 1; i < n; i++) if (buffer[i] == '\0') argc++;
    char **argv = calloc((size_t)argc + 1, sizeof(char *));
    if (argv == NULL) {
      for (int i = 0; i < 3; i++) close(fds[i]);
      reply.detail = ENOMEM;
      if (cposix_zygote_send(control, reply, -1) != 0) return 0;
      continue;
    }
    argv[0] = (char *)program;
    int index = 1;
    for (ssize_t i = 1; i < n; i += (ssize_t)strlen(buffer + i) + 1) argv[index++] = buffer + i;
    pid_t child = fork();
    if (child == 0) {
      /* The new daemon: the launcher's descriptors become 0, 1 and 2; the control socket is not its to keep. */
      close(control);
      for (int i = 0; i < 3; i++) {
        if (dup2(fds[i], i) < 0) _exit(71);
      }
      for (int i = 0; i < 3; i++) if (fds[i] > 2) close(fds[i]);
      _exit(run(argc, argv));
    }
    free(argv);
    for (int i = 0; i < 3; i++) close(fds[i]);
    int pidfd = -1;
    if (child < 0) {
      reply.detail = errno;
    } else {
      pidfd = (int)syscall(SYS_pidfd_open, child, 0);
      reply.value = child;
      reply.detail = pidfd < 0 ? errno : 0;
    }
    int sent = cposix_zygote_send(control, reply, pidfd);
    if (pidfd >= 0) close(pidfd);
    if (sent != 0) return 0;
  }
}

static int cposix_zygote_receive(int control, struct cposix_zygote_reply *reply, int *fd, int timeout_ms) {
  struct pollfd pfd = {.fd = control, .events = POLLIN};
  int ready;
  do ready = poll(&pfd, 1, timeout_ms);
  while (ready < 0 && errno == EINTR);
  if (ready == 0) {
    errno = ETIMEDOUT;
    return -1;
  }
  if (ready < 0) return -1;
  struct iovec iov = {.iov_base = reply, .iov_len = sizeof *reply};
  union {
    char buffer[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } control_buffer;
  struct msghdr message = {
    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control_buffer.buffer,
    .msg_controllen = sizeof control_buffer.buffer};
  ssize_t n;
  do n = recvmsg(control, &message, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n == 0) errno = EPIPE;
  if (n <= 0) return -1;
  *fd = -1;
  for (struct cmsghdr *h = CMSG_FIRSTHDR(&message); h != NULL; h = CMSG_NXTHDR(&message, h)) {
    if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) memcpy(fd, CMSG_DATA(h), sizeof(int));
  }
  if (n != (ssize_t)sizeof *reply) {
    if (*fd >= 0) close(*fd);
    errno = EPROTO;
    return -1;
  }
  return 0;
}

int cposix_zygote_spawn(int control, const char *arguments, size_t length, const int fds[3], int timeout_ms,
                        int *pidfd) {
  if (length + 1 > CPOSIX_ZYGOTE_MAX_MESSAGE) {
    errno = E2BIG;
    return -1;
  }
  char kind = 'S';
  struct iovec iov[2] = {{.iov_base = &kind, .iov_len = 1}, {.iov_base = (void *)arguments, .iov_len = length}};
  union {
    char buffer[CMSG_SPACE(3 * sizeof(int))];
    struct cmsghdr align;
  } control_buffer;
  memset(&control_buffer, 0, sizeof control_buffer);
  struct msghdr message = {
    .msg_iov = iov, .msg_iovlen = 2, .msg_control = control_buffer.buffer,
    .msg_controllen = sizeof control_buffer.buffer};
  struct cmsghdr *header = CMSG_FIRSTHDR(&message);
  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN(3 * sizeof(int));
  memcpy(CMSG_DATA(header), fds, 3 * sizeof(int));
  ssize_t n;
  do n = sendmsg(control, &message, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  if (n < 0) return -1;
  struct cposix_zygote_reply reply;
  if (cposix_zygote_receive(control, &reply, pidfd, timeout_ms) != 0) return -1;
  if (reply.value < 0) {
    if (*pidfd >= 0) close(*pidfd);
    *pidfd = -1;
    errno = reply.detail;
    return -1;
  }
  return reply.value;
}

int cposix_zygote_status(int control, int pid, int timeout_ms, int *detail) {
  char message[1 + sizeof(int32_t)];
  message[0] = 'W';
  int32_t value = pid;
  memcpy(message + 1, &value, sizeof value);
  ssize_t n;
  do n = send(control, message, sizeof message, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  if (n < 0) return -2;
  struct cposix_zygote_reply reply;
  int fd;
  if (cposix_zygote_receive(control, &reply, &fd, timeout_ms) != 0) return -2;
  if (fd >= 0) close(fd);
  *detail = reply.detail;
  return reply.value;
}
