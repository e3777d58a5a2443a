/* epoll: an instance, its interest list, and a wait that hands out each event's token and flags. */
#define _GNU_SOURCE
#include "cposix.h"
#include <sys/epoll.h>

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
