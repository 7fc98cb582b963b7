// report/fio/json_env.cpp - ioplan.environment and the plan hash (json_env.hpp).
//
// Absent stays absent: an empty string or a negative number from the engine
// means "could not be read", and such a key is left out rather than written
// as "" or -1, so a consumer never mistakes a guess for a fact.
#include <cstring>
#include <iomanip>
#include <sstream>

#include <nettle/sha2.h>

#include "report/fio/json_env.hpp"
#include "report/showplan.hpp"

namespace report {

namespace {

void put_str(ojson &o, const char *key, const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);
	if (n)
		o[key] = std::string(s, n);
}

template <typename T> void put_num(ojson &o, const char *key, T v)
{
	if (v >= 0)
		o[key] = v;
}

#define PUT_STR(o, key, field) put_str(o, key, field, sizeof(field))

ojson layer_json(const res_env_layer &l)
{
	ojson o = ojson::object();
	o["depth"] = l.depth;
	PUT_STR(o, "kind", l.kind);
	bool fs = !strcmp(l.kind, "filesystem");
	PUT_STR(o, fs ? "type" : "name", l.name);
	if (fs) {
		PUT_STR(o, "mount_point", l.path);
		PUT_STR(o, "source", l.source);
		PUT_STR(o, "options", l.options);
		PUT_STR(o, "super_options", l.super_options);
	} else if (!strcmp(l.kind, "loop")) {
		PUT_STR(o, "backing_file", l.path);
	} else if (!strcmp(l.kind, "dm")) {
		PUT_STR(o, "dm_name", l.options);
	} else if (!strcmp(l.kind, "md")) {
		PUT_STR(o, "level", l.options);
	}
	return o;
}

ojson target_json(const res_env &env, const res_env_target &t)
{
	ojson o = ojson::object();
	PUT_STR(o, "path", t.path);
	o["files"] = t.nr_files;
	ojson stack = ojson::array();
	for (uint32_t i = t.first_layer; i < t.first_layer + t.nr_layers && i < env.nr_layers; i++)
		stack.push_back(layer_json(env.layers[i]));
	o["stack"] = stack;
	return o;
}

ojson disk_json(const res_env_disk &d)
{
	ojson o = ojson::object();
	PUT_STR(o, "name", d.name);
	PUT_STR(o, "vendor", d.vendor);
	PUT_STR(o, "model", d.model);
	PUT_STR(o, "firmware", d.firmware);
	put_num(o, "size_bytes", d.size_bytes);
	if (d.rotational >= 0)
		o["rotational"] = d.rotational != 0;
	put_num(o, "logical_block_size", d.logical_block_size);
	put_num(o, "physical_block_size", d.physical_block_size);
	PUT_STR(o, "scheduler", d.scheduler);
	put_num(o, "nr_requests", d.nr_requests);
	PUT_STR(o, "write_cache", d.write_cache);
	if (d.counted)
		o["during_run"] = ojson{ { "ios", d.ios },
					 { "bytes", d.bytes },
					 { "run_bytes", d.run_bytes },
					 { "other_bytes", d.other_bytes },
					 { "other_io", d.other_io } };
	return o;
}

ojson host_json(const results &r, const res_env &e)
{
	ojson o = ojson::object();
	put_str(o, "host", r.hostname, sizeof(r.hostname));
	ojson cpu = ojson::object();
	PUT_STR(cpu, "model", e.cpu_model);
	put_num(cpu, "sockets", e.sockets);
	put_num(cpu, "cores", e.cores);
	put_num(cpu, "threads", e.threads);
	o["cpu"] = cpu;
	put_num(o, "memory_bytes", e.memory_bytes);
	put_str(o, "kernel", r.kernel, sizeof(r.kernel));
	ojson os = ojson::object();
	PUT_STR(os, "id", e.os_id);
	PUT_STR(os, "version_id", e.os_version_id);
	PUT_STR(os, "pretty_name", e.os_pretty_name);
	o["distribution"] = os;
	ojson virt = ojson::object();
	PUT_STR(virt, "type", e.virtualization);
	PUT_STR(virt, "vm", e.vm);
	PUT_STR(virt, "container", e.container);
	o["virtualization"] = virt;
	ojson sys = ojson::object();
	PUT_STR(sys, "vendor", e.sys_vendor);
	PUT_STR(sys, "product", e.product_name);
	PUT_STR(sys, "instance_type", e.instance_type);
	o["system"] = sys;
	return o;
}

} // namespace

ojson environment_json(const results &r)
{
	if (!r.env)
		return ojson::object();
	const res_env &e = *r.env;
	ojson o = host_json(r, e);
	ojson targets = ojson::array();
	for (uint32_t i = 0; i < e.nr_targets; i++)
		targets.push_back(target_json(e, e.targets[i]));
	o["targets"] = targets;
	ojson disks = ojson::array();
	for (uint32_t i = 0; i < e.nr_disks; i++)
		disks.push_back(disk_json(e.disks[i]));
	o["disks"] = disks;
	return o;
}

namespace {

// Feeds what is written straight into SHA-256: the plan's text (tens of MB
// with many files) is hashed as it is printed, never held whole.  Nettle's,
// not OpenSSL's: an EVP digest's first
// use loads openssl.cnf and its providers, a quarter of the instructions of a
// small run's whole life (5.9 of 20.2 million, callgrind), for 32 bytes here.
class digest_buf : public std::streambuf {
public:
	digest_buf() { sha256_init(&ctx_); setp(buf_, buf_ + sizeof buf_); }
	std::string hex()
	{
		uint8_t md[SHA256_DIGEST_SIZE];
		std::ostringstream out;
		sync();
		sha256_digest(&ctx_, sizeof md, md);
		for (uint8_t b : md)
			out << std::hex << std::setw(2) << std::setfill('0') << (int)b;
		return out.str();
	}

protected:
	int_type overflow(int_type c) override
	{
		sync();
		if (!traits_type::eq_int_type(c, traits_type::eof()))
			sputc(traits_type::to_char_type(c));
		return traits_type::not_eof(c);
	}
	int sync() override
	{
		sha256_update(&ctx_, (size_t)(pptr() - pbase()), reinterpret_cast<const uint8_t *>(pbase()));
		setp(buf_, buf_ + sizeof buf_);
		return 0;
	}

private:
	sha256_ctx ctx_;
	char buf_[1 << 16];
};

} // namespace

std::string plan_hash(const plan &p)
{
	digest_buf buf;
	std::ostream text(&buf);
	write_showplan(p, text);
	return text ? buf.hex() : "";
}

std::string workload_hash(const plan &p)
{
	digest_buf buf;
	std::ostream text(&buf);
	write_showplan(p, text, showplan_view::workload);
	return text ? buf.hex() : "";
}

} // namespace report
