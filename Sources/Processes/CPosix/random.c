/* Random bytes: getrandom itself, and a per-process pool that never hands out the same bytes twice (not across a
   fork either), with the forked test of that promise. */
#define _GNU_SOURCE
#include "cposix.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

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
