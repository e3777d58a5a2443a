/* CPU affinity: pinning a thread or a whole process to one CPU, and giving threads back the process's own mask. */
#define _GNU_SOURCE
#include "cposix.h"
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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
