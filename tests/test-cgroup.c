/* test-cgroup.c: jobs read from /proc/<pid>/cgroup.
 *
 * The paths are the layouts each system documents and makes: Slurm's
 * cgroup v1 and v2 plugins, the kubelet's cgroupfs and systemd drivers
 * under containerd, CRI-O and Docker, Docker and Podman on their own,
 * systemd services and logind sessions; then paths that only look like
 * them, hostile text and sizes past the bounds. */
#include <string.h>

#include "rtop-cgroup-private.h"
#include "rtop-text.h"

#define CTR "3d2ae0c5b6d4e5f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718"
#define POD "0f7f8fa5-9d3b-4b8c-a2b5-6c9a1e9c3d21"
#define POD_ "0f7f8fa5_9d3b_4b8c_a2b5_6c9a1e9c3d21"

typedef struct {
  const char *path;
  RtopJobKind kind;
  const char *id;
  const char *detail;
  const char *name;
} Case;

static const Case cases[] = {
  /* Slurm, cgroup v2 (slurmstepd's scope) and v1 (under "slurm" or "slurm_<node>"). */
  { "/system.slice/slurmstepd.scope/job_1234/step_0/user/task_0", RTOP_JOB_SLURM, "1234", "0", "slurm 1234.0" },
  { "/system.slice/slurmstepd.scope/job_1234/step_batch/user/task_0", RTOP_JOB_SLURM, "1234", "batch", "slurm 1234.batch" },
  { "/system.slice/slurmstepd.scope/job_9/step_extern/slurm", RTOP_JOB_SLURM, "9", "extern", "slurm 9.extern" },
  { "/slurm/uid_1000/job_42/step_3/task_1", RTOP_JOB_SLURM, "42", "3", "slurm 42.3" },
  { "/slurm_node01/uid_1000/job_42/step_interactive", RTOP_JOB_SLURM, "42", "interactive", "slurm 42.interactive" },
  { "/slurm/uid_1000/job_42", RTOP_JOB_SLURM, "42", NULL, "slurm 42" },
  { "/slurm/uid_1000/job_42/step_bogus", RTOP_JOB_SLURM, "42", NULL, "slurm 42" },
  /* Kubernetes, systemd driver: containerd, CRI-O, Docker; guaranteed QoS has no QoS slice. */
  { "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD_ ".slice/cri-containerd-" CTR ".scope",
    RTOP_JOB_KUBERNETES, POD, CTR, "pod " POD "/3d2ae0c5b6d4" },
  { "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" POD_ ".slice/crio-" CTR ".scope",
    RTOP_JOB_KUBERNETES, POD, CTR, "pod " POD "/3d2ae0c5b6d4" },
  { "/kubepods.slice/kubepods-pod" POD_ ".slice/docker-" CTR ".scope", RTOP_JOB_KUBERNETES, POD, CTR, NULL },
  /* kind runs the kubelet under its own slice. */
  { "/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-pod"
    POD_ ".slice/cri-containerd-" CTR ".scope", RTOP_JOB_KUBERNETES, POD, CTR, NULL },
  /* Kubernetes, cgroupfs driver; the pod's own cgroup has no container. */
  { "/kubepods/besteffort/pod" POD "/" CTR, RTOP_JOB_KUBERNETES, POD, CTR, NULL },
  { "/kubepods/pod" POD "/" CTR, RTOP_JOB_KUBERNETES, POD, CTR, NULL },
  { "/kubepods/burstable/pod" POD, RTOP_JOB_KUBERNETES, POD, NULL, "pod " POD },
  { "/kubepods/burstable/pod" POD "/not-a-container", RTOP_JOB_KUBERNETES, POD, NULL, NULL },
  /* Docker and Podman on their own. */
  { "/system.slice/docker-" CTR ".scope", RTOP_JOB_CONTAINER, CTR, "docker", "docker 3d2ae0c5b6d4" },
  { "/docker/" CTR, RTOP_JOB_CONTAINER, CTR, "docker", "docker 3d2ae0c5b6d4" },
  { "/machine.slice/libpod-" CTR ".scope", RTOP_JOB_CONTAINER, CTR, "podman", "podman 3d2ae0c5b6d4" },
  { "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" CTR ".scope/container",
    RTOP_JOB_CONTAINER, CTR, "podman", NULL },
  { "/libpod_parent/libpod-" CTR, RTOP_JOB_CONTAINER, CTR, "podman", NULL },
  /* Podman's conmon is no container. */
  { "/machine.slice/libpod-conmon-" CTR ".scope", RTOP_JOB_CGROUP,
    "/machine.slice/libpod-conmon-" CTR ".scope", NULL, NULL },
  /* Sessions and services. */
  { "/user.slice/user-1000.slice/session-3.scope", RTOP_JOB_SESSION, "3", "1000", "session 3" },
  { "/user.slice/user-42.slice/session-c2.scope", RTOP_JOB_SESSION, "c2", "42", "session c2" },
  { "/system.slice/sshd.service", RTOP_JOB_SERVICE, "sshd.service", NULL, "sshd.service" },
  { "/system.slice/system-getty.slice/getty@tty1.service", RTOP_JOB_SERVICE, "getty@tty1.service", NULL, NULL },
  { "/user.slice/user-1000.slice/user@1000.service/app.slice/pipewire.service",
    RTOP_JOB_SERVICE, "pipewire.service", NULL, NULL },
  { "/user.slice/user-1000.slice/user@1000.service/init.scope", RTOP_JOB_SERVICE, "user@1000.service", NULL, NULL },
  /* Anything else is its path. */
  { "/", RTOP_JOB_CGROUP, "/", NULL, "/" },
  { "/init.scope", RTOP_JOB_CGROUP, "/init.scope", NULL, NULL },
  { "/my/own/group", RTOP_JOB_CGROUP, "/my/own/group", NULL, NULL },
  /* Look-alikes: a job_ outside Slurm, a job id that is not a number, a
   * pod outside kubepods, container ids that are not ids. */
  { "/batch/job_1234/step_0", RTOP_JOB_CGROUP, "/batch/job_1234/step_0", NULL, NULL },
  { "/slurm/uid_1000/job_12a4/step_0", RTOP_JOB_CGROUP, "/slurm/uid_1000/job_12a4/step_0", NULL, NULL },
  { "/pods/pod" POD "/" CTR, RTOP_JOB_CGROUP, "/pods/pod" POD "/" CTR, NULL, NULL },
  { "/kubepods/burstable/podNOT-A-UID", RTOP_JOB_CGROUP, "/kubepods/burstable/podNOT-A-UID", NULL, NULL },
  { "/system.slice/docker-XYZ.scope", RTOP_JOB_CGROUP, "/system.slice/docker-XYZ.scope", NULL, NULL },
  { "/system.slice/docker-abc.scope", RTOP_JOB_CGROUP, "/system.slice/docker-abc.scope", NULL, NULL },
  { "/system.slice/.service", RTOP_JOB_CGROUP, "/system.slice/.service", NULL, NULL },
  { "/user.slice/user-x.slice/session-3.scope", RTOP_JOB_CGROUP, "/user.slice/user-x.slice/session-3.scope", NULL, NULL },
};

static void
assert_job (const RtopJob *job, const Case *c)
{
  g_test_message ("%s", c->path);
  g_assert_cmpint (job->kind, ==, c->kind);
  g_assert_cmpstr (job->id, ==, c->id);
  g_assert_cmpstr (job->detail, ==, c->detail);
  if (c->name != NULL)
    g_assert_cmpstr (job->name, ==, c->name);
  g_assert_true (rtop_text_is_safe (job->name, RTOP_JOB_TEXT_MAX));
}

static void
test_layouts (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      RtopJob job = { 0 };

      rtop_cgroup_classify (cases[i].path, strlen (cases[i].path), &job);
      assert_job (&job, &cases[i]);
      rtop_job_clear (&job);
    }
}

/* Each layout as the last line of a real-looking v2 file. */
static void
test_parse_v2 (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *file = g_strdup_printf ("0::%s\n", cases[i].path);
      RtopJob job = { 0 };

      g_assert_true (rtop_cgroup_parse (file, strlen (file), &job));
      assert_job (&job, &cases[i]);
      rtop_job_clear (&job);
    }
}

/* v1 and hybrid: the line that says most wins, the v2 line on a tie. */
static void
test_parse_v1 (void)
{
  static const char slurm_v1[] =
    "12:pids:/system.slice/slurmd.service\n"
    "10:freezer:/slurm/uid_1000/job_42/step_0\n"
    "9:cpuset:/slurm/uid_1000/job_42/step_0\n"
    "4:memory:/slurm/uid_1000/job_42/step_0/task_0\n"
    "1:name=systemd:/system.slice/slurmd.service\n"
    "0::/system.slice/slurmd.service\n";
  static const char hybrid[] =
    "12:cpuset:/\n"
    "11:memory:/user.slice/user-1000.slice/session-3.scope\n"
    "1:name=systemd:/user.slice/user-1000.slice/session-3.scope\n"
    "0::/\n";
  static const char docker_v1[] =
    "13:rdma:/\n"
    "12:pids:/docker/" CTR "\n"
    "5:cpu,cpuacct:/docker/" CTR "\n"
    "0::/system.slice/containerd.service\n";
  static const char tie[] = "3:cpu:/a\n0::/b\n1:name=systemd:/c";
  RtopJob job = { 0 };

  g_assert_true (rtop_cgroup_parse (slurm_v1, strlen (slurm_v1), &job));
  g_assert_cmpstr (job.name, ==, "slurm 42.0");
  g_assert_true (rtop_cgroup_parse (hybrid, strlen (hybrid), &job));
  g_assert_cmpstr (job.name, ==, "session 3");
  g_assert_true (rtop_cgroup_parse (docker_v1, strlen (docker_v1), &job));
  g_assert_cmpint (job.kind, ==, RTOP_JOB_CONTAINER);
  g_assert_true (rtop_cgroup_parse (tie, strlen (tie), &job));
  g_assert_cmpstr (job.id, ==, "/b");
  rtop_job_clear (&job);
}

/* Control characters, bidirectional overrides and invalid UTF-8 in a path
 * that a process's owner named are escaped; nothing is shown raw. */
static void
test_hostile (void)
{
  static const char *const paths[] = {
    "/system.slice/\x1b[2J\x1b[31mevil.service",
    "/my/\xe2\x80\xaegpt.sh",
    "/bad/\xff\xfe utf8",
    "/back\\slash/\x07" "bell",
    "/slurm/uid_1/job_1/step_0\x1b]0;title\x07",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      RtopJob job = { 0 };

      rtop_cgroup_classify (paths[i], strlen (paths[i]), &job);
      g_assert_cmpint (job.kind, !=, RTOP_JOB_NONE);
      g_assert_true (rtop_text_is_safe (job.id, RTOP_JOB_TEXT_MAX));
      g_assert_true (rtop_text_is_safe (job.name, RTOP_JOB_TEXT_MAX));
      g_assert_null (strchr (job.name, '\x1b'));
      rtop_job_clear (&job);
    }
  {
    RtopJob job = { 0 };

    rtop_cgroup_classify (paths[0], strlen (paths[0]), &job);
    g_assert_cmpstr (job.id, ==, "\\x1b[2J\\x1b[31mevil.service");
    rtop_cgroup_classify (paths[3], strlen (paths[3]), &job);
    g_assert_cmpstr (job.id, ==, "/back\\\\slash/\\x07bell");
    /* A backslash alone is escaped too, so "\\x1b" in a name is not read as an escape. */
    rtop_cgroup_classify ("/system.slice/a\\x1b.service", 27, &job);
    g_assert_cmpstr (job.id, ==, "a\\\\x1b.service");
    rtop_job_clear (&job);
  }
}

/* Past the bounds: a path longer than PATH_MAX is no job; one deeper than
 * the components read is its path, cut; lines past the limit are not read;
 * a NUL or a malformed line is skipped. */
static void
test_oversized (void)
{
  g_autoptr(GString) path = g_string_new (NULL);
  g_autoptr(GString) file = g_string_new (NULL);
  RtopJob job = { 0 };

  while (path->len <= RTOP_CGROUP_PATH_MAX)
    g_string_append (path, "/slurm/job_1");
  rtop_cgroup_classify (path->str, path->len, &job);
  g_assert_cmpint (job.kind, ==, RTOP_JOB_NONE);

  g_string_printf (file, "0::%s\n1:name=systemd:/system.slice/a.service\n", path->str);
  g_assert_true (rtop_cgroup_parse (file->str, file->len, &job));
  g_assert_cmpstr (job.id, ==, "a.service");

  g_string_set_size (path, 0);
  for (guint i = 0; i < 300; i++)
    g_string_append (path, "/dd");
  g_string_append (path, "/sshd.service");
  rtop_cgroup_classify (path->str, path->len, &job);
  g_assert_cmpint (job.kind, ==, RTOP_JOB_CGROUP);
  g_assert_cmpuint (strlen (job.id), <=, RTOP_JOB_TEXT_MAX);
  g_assert_true (g_str_has_suffix (job.id, "…"));

  g_string_set_size (file, 0);
  for (guint i = 0; i < RTOP_CGROUP_LINES_MAX; i++)
    g_string_append_printf (file, "%u:x:/plain\n", i + 1);
  g_string_append (file, "0::/system.slice/late.service\n");
  g_assert_true (rtop_cgroup_parse (file->str, file->len, &job));
  g_assert_cmpint (job.kind, ==, RTOP_JOB_CGROUP);

  rtop_cgroup_classify ("/a\0b.service", 12, &job);
  g_assert_cmpint (job.kind, ==, RTOP_JOB_NONE);
  g_assert_false (rtop_cgroup_parse ("0::/a\0b\n", 8, &job));
  g_assert_false (rtop_cgroup_parse ("", 0, &job));
  g_assert_false (rtop_cgroup_parse ("garbage\nx::/a\n0:/a\n0::\n0::relative\n", 34, &job));
  g_assert_cmpint (job.kind, ==, RTOP_JOB_NONE);
  g_assert_null (job.id);
}

static void
test_job_model (void)
{
  RtopJob a = { 0 }, b = { 0 };

  for (guint k = RTOP_JOB_NONE + 1; k < RTOP_JOB_N_KINDS; k++)
    g_assert_cmpint (rtop_job_kind_from_string (rtop_job_kind_to_string (k)), ==, k);
  g_assert_null (rtop_job_kind_to_string (RTOP_JOB_N_KINDS));
  g_assert_cmpint (rtop_job_kind_from_string ("nonsense"), ==, RTOP_JOB_NONE);

  rtop_job_set (&a, RTOP_JOB_SLURM, "7", "batch");
  rtop_job_copy (&b, &a);
  g_assert_cmpstr (b.id, ==, "7");
  g_assert_cmpstr (b.detail, ==, "batch");
  g_assert_cmpstr (b.name, ==, "slurm 7.batch");
  /* Its own parts, set again. */
  rtop_job_set (&a, a.kind, a.id, a.detail);
  g_assert_cmpstr (a.name, ==, b.name);
  rtop_job_set (&a, RTOP_JOB_SERVICE, "x\x1b.service", NULL);
  g_assert_cmpstr (a.id, ==, "x\\x1b.service");
  rtop_job_set (&a, RTOP_JOB_SLURM, "", NULL);
  g_assert_cmpint (a.kind, ==, RTOP_JOB_NONE);
  rtop_job_set (&a, RTOP_JOB_N_KINDS, "1", NULL);
  g_assert_cmpint (a.kind, ==, RTOP_JOB_NONE);
  g_assert_null (rtop_job_whole_name (&a));
  rtop_job_clear (&a);
  rtop_job_clear (&b);

  /* The whole job a step or a container belongs to. */
  {
    static const struct { RtopJobKind kind; const char *id, *detail, *name, *whole; } parts[] = {
      { RTOP_JOB_SLURM, "1234", "0", "slurm 1234.0", "slurm 1234" },
      { RTOP_JOB_SLURM, "1234", NULL, "slurm 1234", "slurm 1234" },
      { RTOP_JOB_KUBERNETES, "6d1f3c2a-8b4e-4f7a-9c1d-2e5b7a9f0c31", "3b8f5e0c9a7d41e2",
        "pod 6d1f3c2a-8b4e-4f7a-9c1d-2e5b7a9f0c31/3b8f5e0c9a7d", "pod 6d1f3c2a-8b4e-4f7a-9c1d-2e5b7a9f0c31" },
      { RTOP_JOB_CONTAINER, "0123456789abcdef", "docker", "docker 0123456789ab", "docker 0123456789ab" },
      { RTOP_JOB_SERVICE, "nccl.service", NULL, "nccl.service", "nccl.service" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
      {
        RtopJob j = { 0 };
        g_autofree char *whole = NULL;

        rtop_job_set (&j, parts[i].kind, parts[i].id, parts[i].detail);
        whole = rtop_job_whole_name (&j);
        g_assert_cmpstr (j.name, ==, parts[i].name);
        g_assert_cmpstr (whole, ==, parts[i].whole);
        rtop_job_clear (&j);
      }
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/collector/cgroup/layouts", test_layouts);
  g_test_add_func ("/collector/cgroup/parse-v2", test_parse_v2);
  g_test_add_func ("/collector/cgroup/parse-v1", test_parse_v1);
  g_test_add_func ("/collector/cgroup/hostile", test_hostile);
  g_test_add_func ("/collector/cgroup/oversized", test_oversized);
  g_test_add_func ("/model/job", test_job_model);
  return g_test_run ();
}
