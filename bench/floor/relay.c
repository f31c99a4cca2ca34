/*
 * The floor of a front that relays to a worker process, on this machine: one epoll thread takes HTTP/1.1
 * requests from any number of connections, passes each one, as one message, over a unix socket to a
 * worker process, and copies the worker's one-message answer back to the connection the request came from
 * (answers come back in the order the requests went out). The worker answers every request with the bench
 * app's /hello response. No parsing beyond finding "Connection: close", no allocation, no timers: what the
 * wake-ups, reads and writes of a two-process request path cost here, which no real server's front can
 * undercut. The bench harness runs it as a server of kind "relay" (bench/scenarios/relay-floor.scenario):
 * the relay's thread is read as the front ("host"), the worker as the app side.
 *
 * Usage: relay PORT
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_IN_FLIGHT 4096

static const char RESPONSE[] =
    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 25\r\n\r\nHello from the bench app\n";

static void worker(int link)
{
    char buf[65536];
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    for (;;) {
        if (read(link, buf, sizeof buf) <= 0) {
            _exit(0);
        }
        if (write(link, RESPONSE, sizeof RESPONSE - 1) < 0) {
            _exit(1);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: relay PORT\n");
        return 2;
    }
    int link[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, link) != 0) {
        perror("socketpair");
        return 1;
    }
    if (fork() == 0) {
        close(link[0]);
        worker(link[1]);
    }
    close(link[1]);
    signal(SIGPIPE, SIG_IGN);

    int one = 1;
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[1])),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(listener, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(listener, 1024) != 0) {
        perror("bind");
        return 1;
    }
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = listener};
    epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
    ev.data.fd = link[0];
    epoll_ctl(ep, EPOLL_CTL_ADD, link[0], &ev);

    /* Requests sent to the worker and not answered yet, oldest first: the connection, and whether to close it. */
    static int waiting_fd[MAX_IN_FLIGHT];
    static char waiting_close[MAX_IN_FLIGHT];
    unsigned head = 0, tail = 0;
    static char buf[65536];
    struct epoll_event events[64];
    for (;;) {
        int n = epoll_wait(ep, events, 64, -1);
        for (int i = 0; i < n; i++) {
            int fd = events[i].data.fd;
            if (fd == listener) {
                int c;
                while ((c = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    struct epoll_event cev = {.events = EPOLLIN, .data.fd = c};
                    epoll_ctl(ep, EPOLL_CTL_ADD, c, &cev);
                }
            } else if (fd == link[0]) {
                ssize_t r = read(link[0], buf, sizeof buf);
                if (r <= 0) {
                    return 1; /* the worker is gone */
                }
                if (head != tail) {
                    unsigned slot = head++ % MAX_IN_FLIGHT;
                    if (write(waiting_fd[slot], buf, r) < 0 || waiting_close[slot]) {
                        close(waiting_fd[slot]); /* closing also takes it out of the epoll set */
                    }
                }
            } else {
                ssize_t r = read(fd, buf, sizeof buf - 1);
                if (r <= 0) {
                    close(fd);
                    continue;
                }
                buf[r] = 0;
                if (tail - head == MAX_IN_FLIGHT || write(link[0], buf, r) < 0) {
                    close(fd);
                    continue;
                }
                unsigned slot = tail++ % MAX_IN_FLIGHT;
                waiting_fd[slot] = fd;
                waiting_close[slot] = strcasestr(buf, "\r\nconnection: close") != NULL;
            }
        }
    }
}
