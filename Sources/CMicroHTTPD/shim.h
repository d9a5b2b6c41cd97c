#ifndef REEL_MICROHTTPD_SHIM_H
#define REEL_MICROHTTPD_SHIM_H
// libmicrohttpd for Swift: its start function and response helpers are C variadics or take macros Swift cannot
// call, so these small inline wrappers pass the options Reel uses.
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <poll.h>
#ifndef POLLRDHUP
#define POLLRDHUP 0x2000  /* Linux: the peer shut down its side (a _GNU_SOURCE name) */
#endif
#include <microhttpd.h>

/// A daemon with one internal epoll thread for every connection, bound to `address`, with the connection count,
/// idle timeout, per-connection memory (request headers are read into it) and connections per client address
/// bounded. Handlers never block that thread: a response that waits (a held playlist reload, a stream's next
/// bytes, an answer computed on a work pool) suspends its connection and is resumed when it has something.
/// `accept` decides on each new connection from its address; `notify` hears of each connection's start and end.
static inline struct MHD_Daemon *reel_mhd_start(const struct sockaddr *address, MHD_AccessHandlerCallback handler,
                                                void *context, MHD_RequestCompletedCallback completed,
                                                unsigned int connectionLimit, unsigned int timeoutSeconds,
                                                size_t memoryLimit, unsigned int perAddressLimit,
                                                MHD_AcceptPolicyCallback accept, MHD_NotifyConnectionCallback notify) {
    struct MHD_OptionItem options[] = {
        { MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)notify, context },
        { MHD_OPTION_SOCK_ADDR, 0, (void *)address },
        { MHD_OPTION_CONNECTION_LIMIT, connectionLimit, NULL },
        { MHD_OPTION_CONNECTION_TIMEOUT, timeoutSeconds, NULL },
        { MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)memoryLimit, NULL },
        { MHD_OPTION_PER_IP_CONNECTION_LIMIT, perAddressLimit, NULL },
        { MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, context },
        { MHD_OPTION_END, 0, NULL },
    };
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME
                         | (address->sa_family == AF_INET6 ? MHD_USE_IPv6 : 0);
    return MHD_start_daemon(flags, 0, accept, context, handler, context, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

struct reel_mhd_values_visit { void (*each)(void *, const char *, const char *); void *context; };

static inline enum MHD_Result reel_mhd_values_visit_one(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    struct reel_mhd_values_visit *visit = cls;
    if (key) visit->each(visit->context, key, value ? value : "");
    return MHD_YES;
}

/// Calls `each` with every value of `kind` a request carries (headers, query arguments or cookies), in order.
static inline void reel_mhd_values(struct MHD_Connection *connection, enum MHD_ValueKind kind,
                                   void (*each)(void *context, const char *key, const char *value), void *context) {
    struct reel_mhd_values_visit visit = { each, context };
    MHD_get_connection_values(connection, kind, reel_mhd_values_visit_one, &visit);
}

static inline enum MHD_ValueKind reel_mhd_header_kind(void) { return MHD_HEADER_KIND; }
static inline enum MHD_ValueKind reel_mhd_query_kind(void) { return MHD_GET_ARGUMENT_KIND; }
static inline enum MHD_ValueKind reel_mhd_cookie_kind(void) { return MHD_COOKIE_KIND; }

/// Whether the peer of a connected socket hung up (closed or shut down its side): checked, without waiting,
/// for connections that are suspended, which libmicrohttpd does not watch.
static inline int reel_socket_hung_up(int socket) {
    struct pollfd entry = { socket, POLLRDHUP, 0 };
    return poll(&entry, 1, 0) == 1 && (entry.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

/// A connection's socket (owned by libmicrohttpd), or -1.
static inline int reel_mhd_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/// A connection's client address, or NULL.
static inline const struct sockaddr *reel_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

static inline int reel_mhd_notify_started(void) { return MHD_CONNECTION_NOTIFY_STARTED; }

/// The port the daemon listens on (after binding port 0).
static inline unsigned int reel_mhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/// A response holding a copy of `size` bytes.
static inline struct MHD_Response *reel_mhd_response_copying(size_t size, const void *bytes) {
    return MHD_create_response_from_buffer(size, (void *)bytes, MHD_RESPMEM_MUST_COPY);
}

static inline ssize_t reel_mhd_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
static inline ssize_t reel_mhd_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }
static inline uint64_t reel_mhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }

#endif
