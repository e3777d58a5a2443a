#define _GNU_SOURCE
#include "cposix.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <poll.h>
#include <sys/wait.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <stdio.h>

int cposix_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int cposix_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token) {
  struct epoll_event event = {.events = events, .data = {.u64 = token}};
  return epoll_ctl(epfd, op, fd, &event);
}

int cposix_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int max, int timeout_ms) {
  struct epoll_event buffer[256];
  if (max > 256) max = 256;
  int n = epoll_wait(epfd, buffer, max, timeout_ms);
  for (int i = 0; i < n; i++) {
    tokens[i] = buffer[i].data.u64;
    events[i] = buffer[i].events;
  }
  return n;
}

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

ssize_t cposix_getrandom(void *buffer, size_t length) { return getrandom(buffer, length, 0); }

/* Random bytes served from a pool the kernel fills 4 KiB at a time (one getrandom per 256 identifiers instead of one
   each). Bytes are handed out once and wiped. A forked child forgets the pool it inherited (pthread_atfork), so a
   parent and its child never hand out the same bytes; the prepare handler holds the lock across fork so the child's
   copy of the lock is never left held. */
static pthread_mutex_t random_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char random_pool[4096];
static size_t random_pool_left = 0;
static pthread_once_t random_pool_once = PTHREAD_ONCE_INIT;
static void random_pool_prepare(void) { pthread_mutex_lock(&random_pool_lock); }
static void random_pool_parent(void) { pthread_mutex_unlock(&random_pool_lock); }
static void random_pool_child(void) {
  memset(random_pool, 0, sizeof random_pool);
  random_pool_left = 0;
  pthread_mutex_unlock(&random_pool_lock);
}
static void random_pool_register(void) {
  pthread_atfork(random_pool_prepare, random_pool_parent, random_pool_child);
}

int cposix_random_pooled(void *buffer, size_t length) {
  if (length > sizeof random_pool) {
    errno = EINVAL;
    return -1;
  }
  pthread_once(&random_pool_once, random_pool_register);
  pthread_mutex_lock(&random_pool_lock);
  if (random_pool_left < length) {
    size_t filled = 0;
    while (filled < sizeof random_pool) {
      ssize_t n = getrandom(random_pool + filled, sizeof random_pool - filled, 0);
      if (n > 0) filled += (size_t)n;
      else if (n < 0 && errno != EINTR) {
        pthread_mutex_unlock(&random_pool_lock);
        return -1;
      }
    }
    random_pool_left = sizeof random_pool;
  }
  unsigned char *from = random_pool + (sizeof random_pool - random_pool_left);
  memcpy(buffer, from, length);
  memset(from, 0, length);
  random_pool_left -= length;
  pthread_mutex_unlock(&random_pool_lock);
  return 0;
}

static int read_exactly(int fd, void *buffer, size_t length) {
  size_t got = 0;
  while (got < length) {
    ssize_t n = read(fd, (unsigned char *)buffer + got, length - got);
    if (n > 0) got += (size_t)n;
    else if (n == 0 || errno != EINTR) return -1;
  }
  return 0;
}

static int write_exactly(int fd, const void *buffer, size_t length) {
  size_t put = 0;
  while (put < length) {
    ssize_t n = write(fd, (const unsigned char *)buffer + put, length - put);
    if (n > 0) put += (size_t)n;
    else if (n < 0 && errno != EINTR) return -1;
  }
  return 0;
}

static int exited_cleanly(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 0;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int cposix_random_pool_across_fork(void *parent_next, void *child_first, size_t length) {
  if (length > 256) {
    errno = EINVAL;
    return -1;
  }
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return -1;
  pid_t outer = fork();
  if (outer < 0) {
    close(out[0]);
    close(out[1]);
    return -1;
  }
  if (outer == 0) {
    /* A process with one thread, so nothing else draws between its fork and its own draw: a fresh pool, one draw to
       fill it, a fork, then the child's first draw and this process's next one, both sent back. */
    unsigned char warm[16], mine[256], theirs[256];
    int in[2];
    close(out[0]);
    pthread_mutex_lock(&random_pool_lock);
    memset(random_pool, 0, sizeof random_pool);
    random_pool_left = 0;
    pthread_mutex_unlock(&random_pool_lock);
    if (cposix_random_pooled(warm, sizeof warm) != 0 || pipe2(in, O_CLOEXEC) != 0) _exit(1);
    pid_t inner = fork();
    if (inner < 0) _exit(1);
    if (inner == 0) {
      close(in[0]);
      _exit(cposix_random_pooled(theirs, length) == 0 && write_exactly(in[1], theirs, length) == 0 ? 0 : 1);
    }
    close(in[1]);
    int ok = read_exactly(in[0], theirs, length) == 0;
    ok = exited_cleanly(inner) && ok && cposix_random_pooled(mine, length) == 0;
    ok = ok && write_exactly(out[1], mine, length) == 0 && write_exactly(out[1], theirs, length) == 0;
    _exit(ok ? 0 : 1);
  }
  close(out[1]);
  int ok = read_exactly(out[0], parent_next, length) == 0 && read_exactly(out[0], child_first, length) == 0;
  close(out[0]);
  return exited_cleanly(outer) && ok ? 0 : -1;
}

int cposix_pidfd_open(int pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int cposix_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int cposix_exit_with_parent(int parent) {
  if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0) return -1;
  /* The parent may have died before prctl: then we were re-parented already. */
  return getppid() == parent ? 0 : 1;
}

/* The mask the first pin replaced; `cposix_unpinned_saved` is set (release) once it is written. */
static cpu_set_t cposix_unpinned_set;
static int cposix_unpinned_saved;
static pthread_mutex_t cposix_pin_lock = PTHREAD_MUTEX_INITIALIZER;

int cposix_pin_to_cpu(int cpu) {
  pthread_mutex_lock(&cposix_pin_lock);
  if (!__atomic_load_n(&cposix_unpinned_saved, __ATOMIC_ACQUIRE) &&
      sched_getaffinity(0, sizeof cposix_unpinned_set, &cposix_unpinned_set) == 0) {
    __atomic_store_n(&cposix_unpinned_saved, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&cposix_pin_lock);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set);
}

int cposix_unpin(void) {
  if (__atomic_load_n(&cposix_unpinned_saved, __ATOMIC_ACQUIRE)) {
    return sched_setaffinity(0, sizeof cposix_unpinned_set, &cposix_unpinned_set);
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  for (long i = 0; i < n && i < CPU_SETSIZE; i++) CPU_SET(i, &set);
  return sched_setaffinity(0, sizeof set, &set);
}

int cposix_pin_process(int pid, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", pid);
  DIR *tasks = opendir(path);
  if (!tasks) return sched_setaffinity(pid, sizeof set, &set);
  int result = 0;
  struct dirent *entry;
  while ((entry = readdir(tasks)) != NULL) {
    int tid = atoi(entry->d_name);
    if (tid > 0 && sched_setaffinity(tid, sizeof set, &set) != 0) result = -1;
  }
  closedir(tasks);
  return result;
}

int cposix_thread_attr_unpinned(pthread_attr_t *attributes) {
  if (!__atomic_load_n(&cposix_unpinned_saved, __ATOMIC_ACQUIRE)) return 0;
  return pthread_attr_setaffinity_np(attributes, sizeof cposix_unpinned_set, &cposix_unpinned_set);
}

/* The embedded daemon. HealthPairTesting defines this entry point (healthpaird's main); a binary that does not
   link HealthPairTesting has none, and the weak reference is then NULL. */
extern int healthpair_embedded_daemon_main(int argc, char **argv) __attribute__((weak));

/* Runs before main (glibc passes argc, argv and envp to the initialisers of the executable): when the harness
   launched this very binary as a daemon (HEALTHPAIRD_EMBEDDED=1, see Sources/HealthPairClient/DaemonLocator.swift),
   it becomes healthpaird and exits, so the test runner's main never starts. No priority is given, so Swift's own
   image initialiser (linked first) has registered this image's metadata before this runs. */
__attribute__((constructor)) static void cposix_embedded_daemon_hook(int argc, char **argv, char **envp) {
  (void)envp;
  const char *flag = getenv(CPOSIX_EMBEDDED_DAEMON_VARIABLE);
  if (flag == NULL || strcmp(flag, "1") != 0 || healthpair_embedded_daemon_main == NULL) return;
  unsetenv(CPOSIX_EMBEDDED_DAEMON_VARIABLE);
  _exit(healthpair_embedded_daemon_main(argc, argv));
}

int cposix_embeds_daemon(void) { return healthpair_embedded_daemon_main != NULL; }

/* ---- The zygote: a loaded daemon that forks fresh daemons (Sources/Posix/Zygote.swift, docs/architecture.md). ----
   The launcher and the zygote talk over a SOCK_SEQPACKET pair, one request and one reply per message:
     spawn:  'S' then the arguments, each NUL-terminated, with SCM_RIGHTS carrying stdin, stdout and stderr;
             reply: pid (or -1) and errno, with SCM_RIGHTS carrying a pidfd of the new process on success.
     status: 'W' then a pid (int32); reply: state (0 running, 1 exited, 2 killed by a signal, -1 unknown) and the
             exit code or signal.
   The zygote reaps its children as requests arrive and remembers the last exits, so a status asked for after the
   process ended is still known. */

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

int cposix_socketpair_seqpacket(int fds[2]) { return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds); }

int cposix_pidfd_send_signal(int pidfd, int signal) {
  return (int)syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0);
}
