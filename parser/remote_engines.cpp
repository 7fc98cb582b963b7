// parser/remote_engines.cpp - jobs of the net, netsplice and nbd engines: what
// fio 3.33 refuses when such a job starts (engines/net.c fio_netio_init,
// engines/nbd.c), refused here before anything runs and with the option's
// position.  The options are the engines' own (engine/ioengines/net.c, nbd.c),
// read here by name from the job's engine values.
#include <arpa/inet.h>
#include <netinet/in.h>

#include "parser/planner.hpp"
#include "parser/values.hpp"

namespace parser {

namespace {

bool is_net(plan_ioengine e)
{
    return e == PLAN_IOENGINE_NET || e == PLAN_IOENGINE_NETSPLICE;
}

bool is_multicast(const std::string &host)
{
    in_addr a{};
    return inet_aton(host.c_str(), &a) && IN_MULTICAST(ntohl(a.s_addr));
}

bool given(const job_def &d, const char *name)
{
    return d.spec.engine_values.count(name) != 0;
}

// hostname=, else filename= (fio's hostname= sets the filename).
std::string net_host(const job_def &d)
{
    std::string host = trim(engine_text(d.spec, "hostname"));
    if (!host.empty())
        return host;
    return d.spec.filenames.empty() ? "" : d.spec.filenames[0].name;
}

const loc &host_loc(const job_def &d)
{
    return given(d, "hostname") ? option_loc(d, "hostname") : option_loc(d, "filename");
}

bool is_tcp(const job_def &d)
{
    long long proto = engine_int(d.spec, "protocol");
    return proto == PLAN_NET_TCP || proto == PLAN_NET_TCPV6;
}

void check_net_ports(const job_def &d, const std::string &who)
{
    bool unix_socket = engine_int(d.spec, "protocol") == PLAN_NET_UNIX;
    long long port = engine_int(d.spec, "port");
    if (unix_socket && port)
        fail(option_loc(d, "port"), who + "port= is not valid with protocol=unix (the socket is hostname=)");
    if (!unix_socket && !port)
        fail(option_loc(d, "protocol"), who + "the net engine needs port= for tcp or udp");
    if (port && port + d.spec.numjobs - 1 > 65535)
        fail(option_loc(d, "numjobs"), who + "clone k uses port + k: numjobs=" + std::to_string(d.spec.numjobs) +
                                           " runs past port 65535");
}

// fio_netio_init's rules: one direction per datagram/unix job, listen for TCP only, no random offsets.
void check_net_shape(const job_def &d, const std::string &who)
{
    const plan_job &j = d.spec.pj;
    bool tcp = is_tcp(d);
    if (plan_rw_is_random(j.rw))
        fail(option_loc(d, "rw"), who + "network I/O cannot be random (rw=" + plan_rw_name(j.rw) + ")");
    if (plan_rw_has_ddir(j.rw, PLAN_DDIR_TRIM))
        fail(option_loc(d, "rw"), who + "a socket cannot be trimmed (rw=" + plan_rw_name(j.rw) + ")");
    if (!tcp && engine_int(d.spec, "listen"))
        fail(option_loc(d, "listen"), who + "listen is for TCP only; a udp or unix job with rw=read receives");
    if (!tcp && plan_rw_has_ddir(j.rw, PLAN_DDIR_READ) && plan_rw_has_ddir(j.rw, PLAN_DDIR_WRITE))
        fail(option_loc(d, "rw"), who + "a udp or unix job must either read or write, not rw=" + plan_rw_name(j.rw));
}

void check_net_host(const job_def &d, const std::string &who)
{
    long long proto = engine_int(d.spec, "protocol");
    std::string host = net_host(d);
    bool tcp = is_tcp(d);
    bool receives = tcp ? engine_int(d.spec, "listen") != 0
                        : proto != PLAN_NET_UNIX && !plan_rw_has_ddir(d.spec.pj.rw, PLAN_DDIR_WRITE);
    if (proto == PLAN_NET_UNIX && host.empty())
        fail(d.header, who + "protocol=unix needs the socket's path in hostname= or filename=");
    if (receives && !host.empty() && !(proto == PLAN_NET_UDP && is_multicast(host)))
        fail(host_loc(d), who + "a receiver takes no hostname (" + host +
                              "): it binds port= on every address, unless hostname is a UDP multicast group");
    if (!receives && host.empty())
        fail(d.header, who + "a sender needs hostname= (or filename=) to send to" +
                           (plan_rw_has_ddir(d.spec.pj.rw, PLAN_DDIR_READ) ? "; did you forget listen?" : ""));
}

} // namespace

// Where the job is written (any section, as fio's engine would refuse them): the
// net engines' target options under another engine, and uri= under one not nbd.
void check_remote_options(const job_def &d)
{
    plan_ioengine e = d.spec.pj.ioengine;
    std::string who = "job '" + job_name(d) + "': ";
    for (const char *name : {"hostname", "port", "interface"})
        if (!is_net(e) && given(d, name))
            fail(option_loc(d, name), who + name + " is an option of ioengine=net or netsplice, not of ioengine=" +
                                          plan_ioengine_name(e));
    if (e != PLAN_IOENGINE_NBD && given(d, "uri"))
        fail(option_loc(d, "uri"), who + "uri is an option of ioengine=nbd, not of ioengine=" + plan_ioengine_name(e));
}

void check_remote_job(job_def &d)
{
    plan_job &j = d.spec.pj;
    std::string who = "job '" + job_name(d) + "': ";
    if (j.ioengine == PLAN_IOENGINE_NBD) {
        std::string uri = engine_text(d.spec, "uri");
        if (given(d, "uri") && trim(uri).empty())
            fail(option_loc(d, "uri"), "bad value for uri: empty uri");
        d.spec.engine_values["uri"].s = trim(uri);
    }
    if (!is_net(j.ioengine))
        return;
    check_net_ports(d, who);
    check_net_shape(d, who);
    check_net_host(d, who);
    if (!j.size_bytes && !j.size_ppm && !j.filesize_min_bytes)
        fail(option_loc(d, "size"), who + "the net engine needs size= (a socket has no size to take)");
    // The receiver checks each block as it comes; a sender has nothing to read back.
    if (plan_rw_has_ddir(j.rw, PLAN_DDIR_WRITE))
        j.do_verify = false;
    // The engine reads the peer where fio does: hostname=, else the filename.
    d.spec.engine_values["hostname"].s = net_host(d);
    if (given(d, "interface"))
        d.spec.engine_values["interface"].s = trim(engine_text(d.spec, "interface"));
}

} // namespace parser
