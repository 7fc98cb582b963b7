/*
 * engine/environment.c - the machine and the storage stacks (environment.h).
 *
 * Host facts come from /proc (cpuinfo, meminfo), sysfs CPU topology, DMI
 * (/sys/class/dmi/id), /etc/os-release and the CPU's hypervisor leaf, in the
 * order systemd-detect-virt uses them.  A target's stack starts at its mount
 * (statx's mount id, then /proc/self/mountinfo) and walks sysfs down: a
 * partition's parent, a dm/md device's slaves, a loop device's backing file
 * (whose own stack follows), until disks.  Nothing runs a program.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "environment.h"
#include "engine/procfs.h"

#define ENV_MAX_DEPTH 16
/* Someone else's I/O: more than this beyond the run's own bytes (a journal commit is less). */
#define ENV_OTHER_MIN_BYTES (4ull << 20)

/* First line of a file, trailing white space removed; "" when it cannot be read. */
static int read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	buf[0] = '\0';
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		buf[--n] = '\0';
	return buf[0] ? 0 : -ENODATA;
}

static int read_textf(char *buf, size_t len, const char *dir, const char *name)
{
	char path[RES_ENV_PATH + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return read_text(path, buf, len);
}

static int64_t read_num(const char *dir, const char *name)
{
	char buf[64], *end;
	long long v;

	if (read_textf(buf, sizeof(buf), dir, name))
		return -1;
	errno = 0;
	v = strtoll(buf, &end, 10);
	return errno || end == buf ? -1 : v;
}

static bool exists(const char *dir, const char *name)
{
	char path[RES_ENV_PATH + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !access(path, F_OK);
}

/* ---- the host ---- */

static void cpu_model(struct res_env *env)
{
	char line[1024], *colon;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10) && strncmp(line, "Model\t", 6))
			continue;
		colon = strchr(line, ':');
		if (!colon)
			continue;
		colon += strspn(colon + 1, " \t") + 1;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(env->cpu_model, sizeof(env->cpu_model), "%s", colon);
		break;
	}
	fclose(f);
}

/* Sockets, cores and threads from the topology of each CPU sysfs knows. */
static void cpu_topology(struct res_env *env)
{
	DIR *d = opendir("/sys/devices/system/cpu");
	int64_t (*seen)[2] = NULL, pkg, core;
	int32_t threads = 0, cores = 0, sockets = 0, cap = 0;
	char dir[300];
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "cpu", 3) || !de->d_name[3] ||
		    strspn(de->d_name + 3, "0123456789") != strlen(de->d_name + 3))
			continue;
		snprintf(dir, sizeof(dir), "/sys/devices/system/cpu/%s/topology", de->d_name);
		pkg = read_num(dir, "physical_package_id");
		core = read_num(dir, "core_id");
		if (pkg < 0 || core < 0)
			continue;
		threads++;
		if (threads > cap) {
			void *n = realloc(seen, (size_t)(cap = cap * 2 + 16) * sizeof(*seen));

			if (!n)
				break;
			seen = n;
		}
		int32_t i, same_pkg = 0, same_core = 0;

		for (i = 0; i < threads - 1; i++) {
			same_pkg |= seen[i][0] == pkg;
			same_core |= seen[i][0] == pkg && seen[i][1] == core;
		}
		sockets += !same_pkg;
		cores += !same_core;
		seen[threads - 1][0] = pkg;
		seen[threads - 1][1] = core;
	}
	closedir(d);
	free(seen);
	if (threads) {
		env->threads = threads;
		env->cores = cores;
		env->sockets = sockets;
	}
}

static void memory(struct res_env *env)
{
	char line[256];
	unsigned long long kib;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kib) == 1) {
			env->memory_bytes = (int64_t)kib * 1024;
			break;
		}
	fclose(f);
}

static void os_value(const char *v, char *out, size_t len)
{
	size_t n = strcspn(v, "\n");

	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
		v++;
		n -= 2;
	}
	snprintf(out, len, "%.*s", (int)n, v);
}

static void distribution(struct res_env *env)
{
	char line[512];
	FILE *f = fopen("/etc/os-release", "re");

	if (!f)
		f = fopen("/usr/lib/os-release", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "ID=", 3))
			os_value(line + 3, env->os_id, sizeof(env->os_id));
		else if (!strncmp(line, "VERSION_ID=", 11))
			os_value(line + 11, env->os_version_id, sizeof(env->os_version_id));
		else if (!strncmp(line, "PRETTY_NAME=", 12))
			os_value(line + 12, env->os_pretty_name, sizeof(env->os_pretty_name));
	}
	fclose(f);
}

/* ---- virtualization, as systemd-detect-virt decides it ---- */

static const char *const dmi_vendors[][2] = {
	{ "KVM", "kvm" }, { "OpenStack", "kvm" }, { "KubeVirt", "kvm" }, { "Amazon EC2", "amazon" },
	{ "QEMU", "qemu" }, { "VMware", "vmware" }, { "VMW", "vmware" }, { "innotek GmbH", "oracle" },
	{ "VirtualBox", "oracle" }, { "Oracle Corporation", "oracle" }, { "Xen", "xen" },
	{ "Bochs", "bochs" }, { "Parallels", "parallels" }, { "BHYVE", "bhyve" },
	{ "Hyper-V", "microsoft" }, { "Apple Virtualization", "apple" },
	{ "Google Compute Engine", "google" },
};

static const char *dmi_vm(void)
{
	static const char *const files[] = { "product_name", "sys_vendor", "board_vendor",
					     "bios_vendor", "product_version" };
	char buf[RES_ENV_TEXT];

	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		if (read_textf(buf, sizeof(buf), "/sys/class/dmi/id", files[f]))
			continue;
		for (size_t i = 0; i < sizeof(dmi_vendors) / sizeof(dmi_vendors[0]); i++)
			if (!strncmp(buf, dmi_vendors[i][0], strlen(dmi_vendors[i][0])))
				return dmi_vendors[i][1];
		if (!strcmp(files[f], "product_name") && !strcmp(buf, "Virtual Machine"))
			return "microsoft";
	}
	return NULL;
}

static const char *const cpuid_vendors[][2] = {
	{ "XenVMMXenVMM", "xen" }, { "KVMKVMKVM", "kvm" }, { "Linux KVM Hv", "kvm" },
	{ "TCGTCGTCGTCG", "qemu" }, { "VMwareVMware", "vmware" }, { "Microsoft Hv", "microsoft" },
	{ "bhyve bhyve ", "bhyve" }, { "QNXQVMBSQG", "qnx" }, { "ACRNACRNACRN", "acrn" },
	{ "SRESRESRESRE", "sre" }, { "Apple VZ", "apple" },
};

/* The hypervisor's name from CPUID leaf 0x40000000 when the hypervisor bit is set; "" if none. */
static bool cpuid_vm(char *out, size_t len)
{
	out[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;
	char sig[13];

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
		return false;
	__cpuid(0x40000000, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = '\0';
	for (size_t i = 0; i < sizeof(cpuid_vendors) / sizeof(cpuid_vendors[0]); i++)
		if (!strncmp(sig, cpuid_vendors[i][0], strlen(cpuid_vendors[i][0]))) {
			snprintf(out, len, "%s", cpuid_vendors[i][1]);
			return true;
		}
	snprintf(out, len, "vm-other");
	return true;
#else
	return false;
#endif
}

static bool cpuinfo_has_flag(const char *flag)
{
	char line[4096], *save = NULL;
	bool found = false;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5))
			for (char *t = strtok_r(line + 5, " \t\n:", &save); t && !found;
			     t = strtok_r(NULL, " \t\n:", &save))
				found = !strcmp(t, flag);
	fclose(f);
	return found;
}

static void detect_vm(struct res_env *env)
{
	char buf[32];
	const char *dmi = dmi_vm();

	if (dmi && strcmp(dmi, "kvm") && strcmp(dmi, "qemu")) {
		snprintf(env->vm, sizeof(env->vm), "%s", dmi);
		return;
	}
	if (cpuid_vm(env->vm, sizeof(env->vm)) && strcmp(env->vm, "vm-other"))
		return;
	if (dmi)
		snprintf(env->vm, sizeof(env->vm), "%s", dmi);
	else if (!read_text("/sys/hypervisor/type", buf, sizeof(buf)) && !strcmp(buf, "xen"))
		snprintf(env->vm, sizeof(env->vm), "xen");
	else if (!env->vm[0] && cpuinfo_has_flag("hypervisor"))
		snprintf(env->vm, sizeof(env->vm), "vm-other");
	else if (!env->vm[0])
		snprintf(env->vm, sizeof(env->vm), "none");
}

/* container= in pid 1's environment (readable by root only). */
static bool pid1_container(char *out, size_t len)
{
	char buf[8192];
	ssize_t n;
	int fd = open("/proc/1/environ", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (char *p = buf; p < buf + n; p += strlen(p) + 1)
		if (!strncmp(p, "container=", 10) && p[10]) {
			snprintf(out, len, "%s", p + 10);
			return true;
		}
	return false;
}

static void detect_container(struct res_env *env)
{
	char *out = env->container;
	size_t len = sizeof(env->container);

	if (!read_text("/run/systemd/container", out, len) ||
	    !read_text("/run/host/container-manager", out, len) || pid1_container(out, len))
		;
	else if (!access("/run/.containerenv", F_OK))
		snprintf(out, len, "podman");
	else if (!access("/.dockerenv", F_OK))
		snprintf(out, len, "docker");
	else if (!access("/proc/vz", F_OK) && access("/proc/bc", F_OK))
		snprintf(out, len, "openvz");
	else
		snprintf(out, len, "none");
	/* systemd-detect-virt's name for the OCI runtimes' value */
	if (!strcmp(out, "oci"))
		snprintf(out, len, "container-other");
}

static void host(struct res_env *env)
{
	env->sockets = env->cores = env->threads = -1;
	env->memory_bytes = -1;
	cpu_model(env);
	cpu_topology(env);
	memory(env);
	distribution(env);
	read_textf(env->sys_vendor, sizeof(env->sys_vendor), "/sys/class/dmi/id", "sys_vendor");
	read_textf(env->product_name, sizeof(env->product_name), "/sys/class/dmi/id", "product_name");
	/* EC2 is the cloud whose DMI names the instance type (product_name "m5.large"). */
	if (!strcmp(env->sys_vendor, "Amazon EC2") && strchr(env->product_name, '.'))
		snprintf(env->instance_type, sizeof(env->instance_type), "%.63s", env->product_name);
	detect_container(env);
	detect_vm(env);
	snprintf(env->virtualization, sizeof(env->virtualization), "%s",
		 strcmp(env->container, "none") ? env->container : env->vm);
}

/* ---- the stacks ---- */

static struct res_env_layer *add_layer(struct res_env *env, uint32_t depth, const char *kind,
				       const char *name)
{
	struct res_env_layer *l = realloc(env->layers, (env->nr_layers + 1) * sizeof(*l));

	if (!l)
		return NULL;
	env->layers = l;
	l = &env->layers[env->nr_layers++];
	memset(l, 0, sizeof(*l));
	l->depth = depth;
	snprintf(l->kind, sizeof(l->kind), "%s", kind);
	snprintf(l->name, sizeof(l->name), "%s", name);
	return l;
}

static int read_stat(const char *dir, uint64_t v[11])
{
	char buf[512];
	int n;

	if (read_textf(buf, sizeof(buf), dir, "stat"))
		return -ENODATA;
	n = sscanf(buf, "%lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu", (unsigned long *)&v[0],
		   (unsigned long *)&v[1], (unsigned long *)&v[2], (unsigned long *)&v[3],
		   (unsigned long *)&v[4], (unsigned long *)&v[5], (unsigned long *)&v[6],
		   (unsigned long *)&v[7], (unsigned long *)&v[8], (unsigned long *)&v[9],
		   (unsigned long *)&v[10]);
	return n == 11 ? 0 : -EINVAL;
}

/* "[mq-deadline] none" -> "mq-deadline"; a single "none" stays. */
static void scheduler(const char *dir, char *out, size_t len)
{
	char buf[256], *open_, *close_;

	if (read_textf(buf, sizeof(buf), dir, "queue/scheduler"))
		return;
	open_ = strchr(buf, '[');
	close_ = open_ ? strchr(open_, ']') : NULL;
	if (open_ && close_)
		snprintf(out, len, "%.*s", (int)(close_ - open_ - 1), open_ + 1);
	else if (!strchr(buf, ' '))
		snprintf(out, len, "%.*s", (int)len - 1, buf);
}

static void add_disk(struct res_env *env, const char *name, const char *dir)
{
	struct res_env_disk *d;
	int64_t sectors;

	for (uint32_t i = 0; i < env->nr_disks; i++)
		if (!strcmp(env->disks[i].name, name))
			return;
	d = realloc(env->disks, (env->nr_disks + 1) * sizeof(*d));
	if (!d)
		return;
	env->disks = d;
	d = &env->disks[env->nr_disks++];
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	read_textf(d->vendor, sizeof(d->vendor), dir, "device/vendor");
	read_textf(d->model, sizeof(d->model), dir, "device/model");
	if (read_textf(d->firmware, sizeof(d->firmware), dir, "device/firmware_rev"))
		read_textf(d->firmware, sizeof(d->firmware), dir, "device/rev");
	sectors = read_num(dir, "size");
	d->size_bytes = sectors < 0 ? -1 : sectors * 512;
	d->rotational = (int32_t)read_num(dir, "queue/rotational");
	d->logical_block_size = read_num(dir, "queue/logical_block_size");
	d->physical_block_size = read_num(dir, "queue/physical_block_size");
	scheduler(dir, d->scheduler, sizeof(d->scheduler));
	d->nr_requests = read_num(dir, "queue/nr_requests");
	read_textf(d->write_cache, sizeof(d->write_cache), dir, "queue/write_cache");
	d->counted = !read_stat(dir, d->stat0);
}

static int sys_stack(struct res_env *env, const char *dir, uint32_t depth);

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Each device under dir/slaves, in name order so two runs list them alike. */
static int slaves_stack(struct res_env *env, const char *dir, uint32_t depth)
{
	char path[RES_ENV_PATH + 64], real[PATH_MAX], *names[64];
	uint32_t n = 0;
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/slaves", dir);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && n < 64)
		if (de->d_name[0] != '.' && (names[n] = strdup(de->d_name)))
			n++;
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_names);
	for (uint32_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/slaves/%s", dir, names[i]);
		if (realpath(path, real))
			sys_stack(env, real, depth);
		free(names[i]);
	}
	return 0;
}

static bool has_slaves(const char *dir)
{
	char path[RES_ENV_PATH + 64];
	struct dirent *de;
	bool any = false;
	DIR *d;

	snprintf(path, sizeof(path), "%s/slaves", dir);
	d = opendir(path);
	if (!d)
		return false;
	while (!any && (de = readdir(d)))
		any = de->d_name[0] != '.';
	closedir(d);
	return any;
}

/* The layers from the block device whose sysfs directory is dir down to its disks. */
static int sys_stack(struct res_env *env, const char *dir, uint32_t depth)
{
	const char *name = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
	char parent[PATH_MAX];
	struct res_env_layer *l;

	if (depth > ENV_MAX_DEPTH)
		return -ELOOP;
	if (exists(dir, "partition")) {
		if (!add_layer(env, depth, "partition", name))
			return -ENOMEM;
		snprintf(parent, sizeof(parent), "%.*s", (int)(name - 1 - dir), dir);
		return sys_stack(env, parent, depth + 1);
	}
	if (exists(dir, "dm") || exists(dir, "md")) {
		bool dm = exists(dir, "dm");

		if (!(l = add_layer(env, depth, dm ? "dm" : "md", name)))
			return -ENOMEM;
		read_textf(l->options, sizeof(l->options), dir, dm ? "dm/name" : "md/level");
		return slaves_stack(env, dir, depth + 1);
	}
	if (exists(dir, "loop")) {
		if (!(l = add_layer(env, depth, "loop", name)))
			return -ENOMEM;
		if (read_textf(l->path, sizeof(l->path), dir, "loop/backing_file"))
			return 0;
		return env_stack_of(env, l->path, depth + 1);
	}
	if (has_slaves(dir)) {
		if (!add_layer(env, depth, "stacked", name))
			return -ENOMEM;
		return slaves_stack(env, dir, depth + 1);
	}
	if (!add_layer(env, depth, "disk", name))
		return -ENOMEM;
	add_disk(env, name, dir);
	return 0;
}

static int dev_stack(struct res_env *env, unsigned int maj, unsigned int min, uint32_t depth)
{
	char link[64], real[PATH_MAX];

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", maj, min);
	if (!realpath(link, real))
		return -errno;
	return sys_stack(env, real, depth);
}

/* The filesystem layer of the mount with this id, then the device it is on. */
static int mount_stack(struct res_env *env, uint64_t mnt_id, uint32_t depth)
{
	char line[8192];
	struct mount_line m;
	struct res_env_layer *l;
	struct stat st;
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f))
		found = procfs_mount_line(line, &m) && m.id == mnt_id;
	fclose(f);
	if (!found || !(l = add_layer(env, depth, "filesystem", m.fstype)))
		return found ? -ENOMEM : -ENOENT;
	snprintf(l->path, sizeof(l->path), "%s", m.point);
	snprintf(l->source, sizeof(l->source), "%s", m.source);
	snprintf(l->options, sizeof(l->options), "%s", m.options);
	snprintf(l->super_options, sizeof(l->super_options), "%s", m.super ? m.super : "");
	/* btrfs and others show an anonymous device: the mounted source names the real one. */
	if (!m.maj && !strncmp(m.source, "/dev/", 5) && !stat(m.source, &st) && S_ISBLK(st.st_mode)) {
		m.maj = major(st.st_rdev);
		m.min = minor(st.st_rdev);
	}
	return m.maj ? dev_stack(env, m.maj, m.min, depth + 1) : 0;
}

int env_stack_of(struct res_env *env, const char *path, uint32_t depth)
{
	struct statx stx;

	if (depth > ENV_MAX_DEPTH)
		return -ELOOP;
	if (statx(AT_FDCWD, path, 0, STATX_TYPE | STATX_MNT_ID, &stx))
		return -errno;
	if (S_ISBLK(stx.stx_mode))
		return dev_stack(env, stx.stx_rdev_major, stx.stx_rdev_minor, depth);
	if (!(stx.stx_mask & STATX_MNT_ID))
		return -EOPNOTSUPP;
	return mount_stack(env, stx.stx_mnt_id, depth);
}

/* The plan's files grouped by the device they are on: one target each. */
static void targets(struct res_env *env, const struct layout *lay)
{
	uint64_t *keys = calloc(lay->nr ? lay->nr : 1, sizeof(*keys));
	struct res_env_target *t;
	const char *where;
	struct stat st;
	uint32_t i, k;

	if (!keys)
		return;
	for (i = 0; i < lay->nr; i++) {
		if (!layout_file_where(lay, &lay->files[i], &st, &where))
			continue;
		keys[env->nr_targets] = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
		for (k = 0; k < env->nr_targets && keys[k] != keys[env->nr_targets]; k++)
			;
		if (k < env->nr_targets) {
			env->targets[k].nr_files++;
			continue;
		}
		t = realloc(env->targets, (env->nr_targets + 1) * sizeof(*t));
		if (!t)
			break;
		env->targets = t;
		t = &env->targets[env->nr_targets++];
		snprintf(t->path, sizeof(t->path), "%s", lay->files[i].path);
		t->nr_files = 1;
		t->first_layer = env->nr_layers;
		env_stack_of(env, where, 0);
		t->nr_layers = env->nr_layers - t->first_layer;
	}
	free(keys);
}

int env_begin(struct results *r, const struct layout *l)
{
	struct res_env *env = calloc(1, sizeof(*env));

	if (!env)
		return -ENOMEM;
	host(env);
	targets(env, l);
	r->env = env;
	return 0;
}

static uint64_t run_bytes(const struct results *r)
{
	uint64_t sum = 0;

	for (uint32_t j = 0; j < r->nr_jobs; j++)
		for (uint32_t c = 0; c < r->jobs[j].nr_clones; c++)
			for (int d = 0; d < PLAN_DDIR_NR; d++)
				sum += r->jobs[j].clones[c].ddir[d].bytes;
	return sum;
}

void env_end(struct results *r)
{
	char dir[64];
	uint64_t v[11], own;

	if (!r->env)
		return;
	own = run_bytes(r);
	for (uint32_t i = 0; i < r->env->nr_disks; i++) {
		struct res_env_disk *d = &r->env->disks[i];

		snprintf(dir, sizeof(dir), "/sys/block/%s", d->name);
		if (!d->counted || read_stat(dir, v)) {
			d->counted = false;
			continue;
		}
		/* stat fields: 0 read ios, 2 read sectors, 4 write ios, 6 write sectors */
		d->ios = (v[0] - d->stat0[0]) + (v[4] - d->stat0[4]);
		d->bytes = ((v[2] - d->stat0[2]) + (v[6] - d->stat0[6])) * 512;
		d->run_bytes = own;
		d->other_bytes = d->bytes > own ? d->bytes - own : 0;
		d->other_io = d->other_bytes > ENV_OTHER_MIN_BYTES && d->other_bytes > own / 10;
	}
}
