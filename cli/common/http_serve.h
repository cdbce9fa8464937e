/* The connection handling of the command's HTTP services (gostx ocsp
 * -port, gostx ts serve): worker threads, each an epoll loop over
 * non-blocking sockets, all accepting on one listening socket. A worker
 * holds as many connections as come, so clients that connect and send
 * nothing, or a byte now and then, cost a descriptor each and never a
 * worker: each connection gets request_seconds from its start (and from
 * each reply it keeps) to complete a request, then it is closed. The
 * protocol (its request framing, its replies) is the handler's. Reading
 * goes into the worker's buffer; a connection keeps a buffer of its own
 * only while a request of it is incomplete: nothing is allocated per
 * request otherwise. */
#ifndef GOSTX_CLI_HTTP_SERVE_H
#define GOSTX_CLI_HTTP_SERVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

typedef struct http_reply {
  struct iovec iov[2]; /* the head and the body, in the handler's scratch */
  int keep;            /* the connection stays open after it */
} http_reply;

/* What a connection sent, in[0..have) (have <= request_max): 0 when the
 * request is not complete yet; 1 with the reply in *r and the bytes the
 * request took in *used (the rest stays for the next one). At have ==
 * request_max the handler must answer (its "too large"). */
typedef int (*http_handle_fn)(void *ctx, void *scratch, const uint8_t *in, size_t have,
                              size_t *used, http_reply *r);

typedef struct http_server {
  int listen_fd;       /* listening, non-blocking */
  int stop_fd;         /* readable: the workers close their connections and return; -1 none */
  int request_seconds; /* to complete a request, from the connection's start or last reply */
  size_t request_max;  /* the most bytes one request may take */
  size_t scratch_size; /* each worker's memory for the handler, taken once */
  http_handle_fn handle;
  void (*replied)(void *ctx); /* after each reply is handed to the kernel (or NULL) */
  void *ctx;
} http_server;

/* A worker (a pthread start routine; arg is the http_server): returns
 * NULL once stop_fd is readable, never without one. Exits the process
 * with a message when it cannot take its memory. */
void *http_serve_worker(void *arg);

#endif
