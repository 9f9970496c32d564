/* rdmatop-kineto.cc: a Kineto child activity profiler for rdmatop.
 *
 * Built against the Kineto headers that ship inside torch and loaded as the
 * Python module rdmatop._kineto.  Kineto asks every registered child
 * profiler for a session when torch.profiler starts tracing; our session
 * calls back into a Python "source" object (rdmatop.kineto keeps it: it owns
 * the rdmatop.Capture) to start and stop the capture, and when Kineto
 * processes the trace it turns the source's counter points into counter
 * activities.  Kineto's Chrome trace writer emits those as native "ph": "C"
 * events, one track per name and key.
 *
 * The source protocol, all called with the GIL held:
 *   start()                 begin capturing; raises on error
 *   stop()                  end capturing
 *   native_points(start_ns, end_ns)  None, or (bytes, names): the points
 *                           librdmatop made (rdmatop_tracks_clip()), an
 *                           array of rdmatop_track_point, and a list of
 *                           (name, key) by track index
 *   points(start_ns, end_ns)  when native_points() gives None: a list of
 *                           (time_ns, name, key, value) tuples
 * Times are on CLOCK_REALTIME like Kineto's own, inside [start_ns, end_ns].
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstring>
#include <memory>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <kineto/GenericTraceActivity.h>
#include <kineto/IActivityProfiler.h>
#include <kineto/libkineto.h>
#include <kineto/output_base.h>

#ifndef RDMATOP_TORCH_VERSION
#error "RDMATOP_TORCH_VERSION must name the torch version built against"
#endif

namespace {

/* The Chrome trace "pid" the counter tracks belong to: a process of their
 * own, named "rdmatop" by getDeviceInfo(), well away from real pids and
 * from the 0-15 Kineto gives GPUs. */
constexpr int32_t kRtopPid = 0x52444d41;  /* "RDMA" */

/* Kineto's generic counter type: its trace writer emits name, pid, tid and
 * one arg per counter value (HARDWARE_COUNTERS would label the process as a
 * GPU). */
constexpr libkineto::ActivityType kRtopCounterType =
    libkineto::ActivityType::MTIA_COUNTERS;

/* A bound on points per trace, so a forgotten long profile cannot make a
 * trace file no viewer can open. */
constexpr Py_ssize_t kMaxPoints = 2000000;

/* What the last trace's processing cost rdmatop: points given to Kineto
 * and the time taken to read them and make their activities (for the
 * benchmarks: the rest of a profile's stop is Kineto's and torch's). */
std::atomic<int64_t> last_points{0};
std::atomic<int64_t> last_collect_ns{0};

std::mutex source_lock;
PyObject *source = nullptr;  /* strong ref, guarded by source_lock */

PyObject *
get_source ()
{
  std::lock_guard<std::mutex> guard (source_lock);
  Py_XINCREF (source);
  return source;
}

std::string
fetch_error (const char *what)
{
  std::string msg = std::string ("rdmatop: ") + what;
  PyObject *type, *value, *tb;
  PyErr_Fetch (&type, &value, &tb);
  if (value != nullptr)
    {
      PyObject *str = PyObject_Str (value);
      const char *utf8 = str ? PyUnicode_AsUTF8 (str) : nullptr;
      if (utf8 != nullptr)
        msg += std::string (": ") + utf8;
      Py_XDECREF (str);
    }
  Py_XDECREF (type);
  Py_XDECREF (value);
  Py_XDECREF (tb);
  PyErr_Clear ();
  return msg;
}

class RtopSession : public libkineto::IActivityProfilerSession
{
public:
  explicit RtopSession (PyObject *src) : source_ (src) {}

  ~RtopSession () override
  {
    PyGILState_STATE gil = PyGILState_Ensure ();
    Py_XDECREF (source_);
    PyGILState_Release (gil);
  }

  void
  start () override
  {
    call ("start", "starting the capture failed");
    status_ = errors_.empty () ? libkineto::TraceStatus::RECORDING
                               : libkineto::TraceStatus::ERROR;
  }

  void
  stop () override
  {
    if (status_ == libkineto::TraceStatus::RECORDING)
      call ("stop", "stopping the capture failed");
    status_ = libkineto::TraceStatus::PROCESSING;
  }

  std::vector<std::string>
  errors () override
  {
    return errors_;
  }

  void
  processTrace (libkineto::ActivityLogger &logger) override
  {
    processTrace (logger, nullptr, 0, INT64_MAX);
  }

  void
  processTrace (libkineto::ActivityLogger &logger,
                libkineto::getLinkedActivityCallback,
                int64_t start_ns,
                int64_t end_ns) override
  {
    buffer_ = std::make_unique<libkineto::CpuTraceBuffer> ();
    buffer_->span = libkineto::TraceSpan (start_ns, end_ns, "rdmatop");
    buffer_->gpuOpCount = -1;
    auto t0 = std::chrono::steady_clock::now ();
    collect (start_ns, end_ns);
    last_collect_ns = std::chrono::duration_cast<std::chrono::nanoseconds> (
        std::chrono::steady_clock::now () - t0).count ();
    last_points = (int64_t) buffer_->activities.size ();
    for (const auto &act : buffer_->activities)
      logger.handleActivity (*act);
    status_ = libkineto::TraceStatus::READY;
  }

  std::unique_ptr<libkineto::DeviceInfo>
  getDeviceInfo () override
  {
    return std::make_unique<libkineto::DeviceInfo> (
        libkineto::DeviceInfo{kRtopPid, kRtopPid, "rdmatop", "RDMA counters"});
  }

  std::vector<libkineto::ResourceInfo>
  getResourceInfos () override
  {
    return {};
  }

  std::unique_ptr<libkineto::CpuTraceBuffer>
  getTraceBuffer () override
  {
    return std::move (buffer_);
  }

private:
  void
  call (const char *method, const char *what)
  {
    PyGILState_STATE gil = PyGILState_Ensure ();
    PyObject *res = PyObject_CallMethod (source_, method, nullptr);
    if (res == nullptr)
      errors_.push_back (fetch_error (what));
    Py_XDECREF (res);
    PyGILState_Release (gil);
  }

  void
  add_point (int64_t ts, const std::string &name, const std::string &key, double value)
  {
    auto act = std::make_unique<libkineto::GenericTraceActivity> (
        buffer_->span, kRtopCounterType, name);
    act->startTime = ts;
    act->endTime = ts;
    act->device = kRtopPid;
    act->resource = 0;
    act->addCounterValue (key, value);
    buffer_->activities.push_back (std::move (act));
  }

  /* The track names of native_points(), by index; false if malformed. */
  bool
  read_names (PyObject *list, std::vector<std::pair<std::string, std::string>> &names)
  {
    PyObject *seq = PySequence_Fast (list, "the track names must be a sequence");
    if (seq == nullptr)
      return false;
    Py_ssize_t n = PySequence_Fast_GET_SIZE (seq);
    for (Py_ssize_t i = 0; i < n; i++)
      {
        const char *name, *key;
        if (!PyArg_ParseTuple (PySequence_Fast_GET_ITEM (seq, i), "ss", &name, &key))
          {
            Py_DECREF (seq);
            return false;
          }
        names.emplace_back (name, key);
      }
    Py_DECREF (seq);
    return true;
  }

  /* The layout of rdmatop_track_point (rdmatop.h). */
  struct NativePoint
  {
    int64_t time_ns;
    uint32_t track;
    uint32_t reserved;
    double rate;
  };
  static_assert (sizeof (NativePoint) == 24, "rdmatop_track_point is 24 bytes");

  /* Points librdmatop made, straight from its array: no Python object per
   * point.  A malformed answer is an error, not a half-read trace. */
  void
  collect_native (PyObject *answer, int64_t start_ns, int64_t end_ns)
  {
    PyObject *data, *list;
    std::vector<std::pair<std::string, std::string>> names;
    char *bytes;
    Py_ssize_t len;

    if (!PyArg_ParseTuple (answer, "SO", &data, &list)
        || PyBytes_AsStringAndSize (data, &bytes, &len) < 0
        || !read_names (list, names))
      {
        errors_.push_back (fetch_error ("the capture's points are malformed"));
        return;
      }
    if (len % (Py_ssize_t) sizeof (NativePoint) != 0)
      {
        errors_.push_back ("rdmatop: the capture's points are not whole");
        return;
      }
    Py_ssize_t n = std::min (len / (Py_ssize_t) sizeof (NativePoint), kMaxPoints);
    for (Py_ssize_t i = 0; i < n; i++)
      {
        NativePoint p;
        std::memcpy (&p, bytes + i * sizeof p, sizeof p);
        if (p.track >= names.size () || p.time_ns < start_ns || p.time_ns > end_ns)
          continue;
        add_point (p.time_ns, names[p.track].first, names[p.track].second, p.rate);
      }
  }

  /* Reads the source's points into counter activities; a malformed point
   * ends the collection with an error rather than a half-read trace. */
  void
  collect (int64_t start_ns, int64_t end_ns)
  {
    PyGILState_STATE gil = PyGILState_Ensure ();
    PyObject *native = PyObject_HasAttrString (source_, "native_points")
        ? PyObject_CallMethod (source_, "native_points", "LL", (long long) start_ns,
                               (long long) end_ns)
        : (Py_INCREF (Py_None), Py_None);
    if (native == nullptr)
      errors_.push_back (fetch_error ("reading the capture failed"));
    else if (native != Py_None)
      collect_native (native, start_ns, end_ns);
    if (native != Py_None)
      {
        Py_XDECREF (native);
        PyGILState_Release (gil);
        return;
      }
    Py_DECREF (native);
    PyObject *points = PyObject_CallMethod (source_, "points", "LL",
                                            (long long) start_ns,
                                            (long long) end_ns);
    PyObject *seq = points ? PySequence_Fast (points, "points() must return a sequence")
                           : nullptr;
    if (seq == nullptr)
      {
        errors_.push_back (fetch_error ("reading the capture failed"));
        Py_XDECREF (points);
        PyGILState_Release (gil);
        return;
      }

    Py_ssize_t n = PySequence_Fast_GET_SIZE (seq);
    if (n > kMaxPoints)
      n = kMaxPoints;
    for (Py_ssize_t i = 0; i < n; i++)
      {
        PyObject *item = PySequence_Fast_GET_ITEM (seq, i);
        long long ts;
        const char *name, *key;
        double value;
        if (!PyArg_ParseTuple (item, "Lssd", &ts, &name, &key, &value))
          {
            errors_.push_back (fetch_error ("a capture point is malformed"));
            break;
          }
        if (ts < start_ns || ts > end_ns)
          continue;
        add_point (ts, name, key, value);
      }
    Py_DECREF (seq);
    Py_DECREF (points);
    PyGILState_Release (gil);
  }

  PyObject *source_;
  std::vector<std::string> errors_;
  std::unique_ptr<libkineto::CpuTraceBuffer> buffer_;
};

class RtopProfiler : public libkineto::IActivityProfiler
{
public:
  const std::string &
  name () const override
  {
    return name_;
  }

  const std::set<libkineto::ActivityType> &
  availableActivities () const override
  {
    return activities_;
  }

  std::unique_ptr<libkineto::IActivityProfilerSession>
  configure (const std::set<libkineto::ActivityType> &,
             const libkineto::Config &) override
  {
    PyObject *src = get_source ();
    if (src == nullptr)
      return nullptr;
    return std::make_unique<RtopSession> (src);
  }

  std::unique_ptr<libkineto::IActivityProfilerSession>
  configure (int64_t, int64_t,
             const std::set<libkineto::ActivityType> &types,
             const libkineto::Config &config) override
  {
    return configure (types, config);
  }

private:
  const std::string name_ = "rdmatop";
  const std::set<libkineto::ActivityType> activities_ = {kRtopCounterType};
};

bool registered = false;

PyObject *
rtop_set_source (PyObject *, PyObject *arg)
{
  if (arg != Py_None
      && !(PyObject_HasAttrString (arg, "start")
           && PyObject_HasAttrString (arg, "stop")
           && PyObject_HasAttrString (arg, "points")))
    {
      PyErr_SetString (PyExc_TypeError,
                       "the source needs start(), stop() and points()");
      return nullptr;
    }

  {
    std::lock_guard<std::mutex> guard (source_lock);
    Py_XDECREF (source);
    source = nullptr;
    if (arg != Py_None)
      {
        Py_INCREF (arg);
        source = arg;
      }
  }

  /* Kineto keeps factories for ever, so register once; with no source the
   * profiler declines to run a session. */
  if (!registered && arg != Py_None)
    {
      libkineto::api ().registerProfilerFactory (
          [] () -> std::unique_ptr<libkineto::IActivityProfiler> {
            return std::make_unique<RtopProfiler> ();
          });
      registered = true;
    }
  Py_RETURN_NONE;
}

PyObject *
rtop_last_trace_stats (PyObject *, PyObject *)
{
  return Py_BuildValue ("LL", (long long) last_points.load (),
                        (long long) last_collect_ns.load ());
}

PyMethodDef rtop_methods[] = {
  { "last_trace_stats", rtop_last_trace_stats, METH_NOARGS,
    "(points, ns): the counter points of the last trace and the time taken to make them." },
  { "set_source", rtop_set_source, METH_O,
    "Set the object whose capture the Kineto child profiler runs (None: off)." },
  { nullptr, nullptr, 0, nullptr },
};

PyModuleDef rtop_module = {
  PyModuleDef_HEAD_INIT, "_kineto",
  "rdmatop's Kineto child activity profiler (use rdmatop.kineto).",
  -1, rtop_methods, nullptr, nullptr, nullptr, nullptr,
};

} // namespace

PyMODINIT_FUNC
PyInit__kineto (void)
{
  PyObject *mod = PyModule_Create (&rtop_module);
  /* The torch this module was compiled against: rdmatop.kineto compares it
   * with the torch it runs with, since Kineto's C++ API has no stable ABI. */
  if (mod != nullptr
      && PyModule_AddStringConstant (mod, "torch_version", RDMATOP_TORCH_VERSION) < 0)
    Py_CLEAR (mod);
  return mod;
}
