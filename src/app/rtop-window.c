/* rtop-window.c */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "rtop-a11y.h"
#include "rtop-application.h"
#include "rtop-events-view.h"
#include "rtop-overview.h"
#include "rtop-port-detail.h"
#include "rtop-processes-view.h"
#include "rtop-series.h"
#include "rtop-window.h"

/* The interval menu: common choices; a value set elsewhere is added to it. */
static const double interval_presets[] = { 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60 };

struct _RtopWindow {
  GtkApplicationWindow parent_instance;

  RtopHistory *history;
  GSettings *settings;
  GtkStringList *interval_labels;
  GArray *interval_values;      /* double, same order as interval_labels */
  gboolean syncing_interval;

  GtkWidget *back_button;
  GtkToggleButton *record_button;
  GtkLabel *record_label;
  GtkLabel *mode_label;
  GtkStack *title_stack;
  GtkLabel *detail_title;
  GtkDropDown *interval_dropdown;
  GtkStack *main_stack;
  GtkStack *views_stack;
  RtopOverview *overview;
  RtopProcessesView *processes;
  RtopEventsView *events;
  RtopPortDetail *port_detail;
};

G_DEFINE_FINAL_TYPE (RtopWindow, rtop_window, GTK_TYPE_APPLICATION_WINDOW)

enum { PROP_0, PROP_HISTORY, PROP_SETTINGS, N_PROPS };
static GParamSpec *props[N_PROPS];

static RtopApplication *
get_app (RtopWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));

  return RTOP_IS_APPLICATION (app) ? RTOP_APPLICATION (app) : NULL;
}

/* ---- views --------------------------------------------------------------- */

const char *
rtop_window_get_visible_view (RtopWindow *self)
{
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->main_stack), "detail") == 0)
    return "detail";
  return gtk_stack_get_visible_child_name (self->views_stack);
}

static void
show_views (RtopWindow *self)
{
  gtk_stack_set_visible_child_name (self->main_stack, "views");
  gtk_stack_set_visible_child_name (self->title_stack, "switcher");
  gtk_widget_set_visible (self->back_button, FALSE);
}

static void
show_view_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  RtopWindow *self = user_data;
  const char *name = g_variant_get_string (param, NULL);

  if (gtk_stack_get_child_by_name (self->views_stack, name) == NULL)
    return;
  gtk_stack_set_visible_child_name (self->views_stack, name);
  show_views (self);
}

static void
views_changed_cb (RtopWindow *self)
{
  const char *name = gtk_stack_get_visible_child_name (self->views_stack);
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "show-view");

  if (name == NULL)
    return;
  g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_string (name));
  if (self->settings)
    g_settings_set_string (self->settings, "last-view", name);
}

gboolean
rtop_window_show_port (RtopWindow *self, const char *key)
{
  RtopPortItem *port = rtop_history_find_port_by_key (self->history, key);
  g_autofree char *title = NULL;

  if (port == NULL)
    return FALSE;
  rtop_port_detail_set_port (self->port_detail, port);
  /* Translators: the header bar title on a port's page, "rxe0 port 1" */
  title = g_strdup_printf (_("%s port %u"), rtop_port_item_get_device (port), rtop_port_item_get_port (port));
  gtk_label_set_label (self->detail_title, title);
  gtk_stack_set_visible_child_name (self->title_stack, "detail");
  gtk_stack_set_visible_child_name (self->main_stack, "detail");
  gtk_widget_set_visible (self->back_button, TRUE);
  return TRUE;
}

static void
show_port_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  RtopWindow *self = user_data;
  const char *key = g_variant_get_string (param, NULL);

  if (!rtop_window_show_port (self, key))
    g_message ("No port %s to show", key);
}

static void
back_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  RtopWindow *self = user_data;

  show_views (self);
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->views_stack), "overview") == 0)
    rtop_overview_focus_ports (self->overview);
}

static void
find_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  RtopWindow *self = user_data;
  const char *view = rtop_window_get_visible_view (self);

  if (g_strcmp0 (view, "detail") == 0)
    rtop_port_detail_focus_search (self->port_detail);
  else if (g_strcmp0 (view, "processes") == 0)
    rtop_processes_view_focus_search (self->processes);
  else if (g_strcmp0 (view, "events") == 0)
    rtop_events_view_focus (self->events);
  else
    rtop_overview_focus_ports (self->overview);
}

/* ---- live / replay / record ---------------------------------------------- */

static void
refresh_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  RtopApplication *app = get_app (user_data);

  if (app)
    rtop_application_refresh (app);
}

static void
record_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  RtopWindow *self = user_data;
  RtopApplication *app = get_app (self);
  g_autoptr(GError) error = NULL;
  gboolean want = !g_variant_get_boolean (g_action_get_state (G_ACTION (action)));

  if (app == NULL)
    return;
  if (!rtop_application_set_recording (app, want, &error))
    rtop_window_show_error (self, _("Cannot Start Recording"), error->message);
}

void
rtop_window_set_recording (RtopWindow *self, gboolean recording, const char *path)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "record");
  g_autofree char *tip = NULL;

  g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_boolean (recording));
  gtk_label_set_label (self->record_label, recording ? _("Stop") : _("Record"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->record_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  recording ? _("Stop recording") : _("Record"), -1);
  if (recording)
    {
      gtk_widget_add_css_class (GTK_WIDGET (self->record_button), "recording");
      /* Translators: tooltip while recording; %s is the file */
      tip = g_strdup_printf (_("Recording to %s. Click to stop (Ctrl+Shift+R)."), path ? path : "");
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->record_button), "recording");
      tip = g_strdup (_("Record a Perfetto trace of all counters (Ctrl+Shift+R)"));
    }
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->record_button), tip);
}

void
rtop_window_set_replay (RtopWindow *self, const char *title)
{
  GAction *record = g_action_map_lookup_action (G_ACTION_MAP (self), "record");
  GAction *live = g_action_map_lookup_action (G_ACTION_MAP (self), "go-live");

  gtk_widget_set_visible (GTK_WIDGET (self->mode_label), title != NULL);
  if (title)
    {
      /* Translators: header bar note while a recording is shown */
      g_autofree char *text = g_strdup_printf (_("Recording: %s"), title);
      gtk_label_set_label (self->mode_label, text);
    }
  g_simple_action_set_enabled (G_SIMPLE_ACTION (record), title == NULL);
  g_simple_action_set_enabled (G_SIMPLE_ACTION (live), title != NULL);
  gtk_widget_set_sensitive (GTK_WIDGET (self->interval_dropdown), title == NULL);
}

static void
go_live_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  RtopApplication *app = get_app (user_data);

  if (app)
    rtop_application_go_live (app);
}

static void
open_response_cb (GtkNativeDialog *dialog, int response, RtopWindow *self)
{
  RtopApplication *app = get_app (self);

  if (response == GTK_RESPONSE_ACCEPT && app)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      rtop_application_open_recording (app, file);
    }
  g_object_unref (dialog);
}

static void
open_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  RtopWindow *self = user_data;
  GtkFileChooserNative *dialog;
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  dialog = gtk_file_chooser_native_new (_("Open Recording"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  gtk_file_filter_set_name (filter, _("rdmatop recordings (Perfetto JSON)"));
  gtk_file_filter_add_pattern (filter, "*.json");
  gtk_file_filter_add_pattern (filter, "*.json.gz");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (open_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

void
rtop_window_show_error (RtopWindow *self, const char *title, const char *message)
{
  GtkWidget *dialog = gtk_message_dialog_new (GTK_WINDOW (self),
                                              GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                              GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE, "%s", title);

  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s", message);
  g_signal_connect (dialog, "response", G_CALLBACK (gtk_window_destroy), NULL);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- sampling interval ------------------------------------------------- */

static char *
interval_label (double seconds)
{
  /* Translators: a sampling interval in seconds, e.g. "0.5 s" */
  return g_strdup_printf (_("%g s"), seconds);
}

/* Position of the interval in the menu, adding it when it is not a preset. */
static guint
ensure_interval (RtopWindow *self, double seconds)
{
  guint i;
  g_autofree char *label = NULL;
  const char *labels[2] = { NULL, NULL };

  for (i = 0; i < self->interval_values->len; i++)
    {
      double v = g_array_index (self->interval_values, double, i);

      if (fabs (v - seconds) < 1e-6)
        return i;
      if (v > seconds)
        break;
    }
  label = interval_label (seconds);
  labels[0] = label;
  g_array_insert_val (self->interval_values, i, seconds);
  gtk_string_list_splice (self->interval_labels, i, 0, labels);
  return i;
}

static void
interval_setting_cb (RtopWindow *self)
{
  double seconds = g_settings_get_double (self->settings, "interval");

  self->syncing_interval = TRUE;
  gtk_drop_down_set_selected (self->interval_dropdown, ensure_interval (self, seconds));
  self->syncing_interval = FALSE;
}

static void
interval_selected_cb (RtopWindow *self)
{
  guint i = gtk_drop_down_get_selected (self->interval_dropdown);

  if (self->syncing_interval || i >= self->interval_values->len || self->settings == NULL)
    return;
  g_settings_set_double (self->settings, "interval", g_array_index (self->interval_values, double, i));
}

static void
step_interval (RtopWindow *self, int direction)
{
  guint i = gtk_drop_down_get_selected (self->interval_dropdown);

  if (direction < 0 && i > 0)
    gtk_drop_down_set_selected (self->interval_dropdown, i - 1);
  else if (direction > 0 && i + 1 < self->interval_values->len)
    gtk_drop_down_set_selected (self->interval_dropdown, i + 1);
}

static void
faster_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  step_interval (user_data, -1);
}

static void
slower_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  step_interval (user_data, +1);
}

static void
setup_intervals (RtopWindow *self)
{
  self->interval_values = g_array_new (FALSE, FALSE, sizeof (double));
  self->interval_labels = gtk_string_list_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (interval_presets); i++)
    ensure_interval (self, interval_presets[i]);
  gtk_drop_down_set_model (self->interval_dropdown, G_LIST_MODEL (self->interval_labels));
  g_signal_connect_swapped (self->interval_dropdown, "notify::selected",
                            G_CALLBACK (interval_selected_cb), self);
}

/* ---- dump --------------------------------------------------------------- */

char *
rtop_window_dump (RtopWindow *self)
{
  g_autofree char *overview = rtop_overview_dump (self->overview);
  g_autofree char *processes = rtop_processes_view_dump (self->processes);
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "view=%s\n", rtop_window_get_visible_view (self));
  g_string_append (out, overview);
  g_string_append (out, processes);
  if (rtop_port_detail_get_port (self->port_detail))
    {
      g_autofree char *detail = rtop_port_detail_dump (self->port_detail);
      g_string_append (out, detail);
    }
  g_string_append_printf (out, "events=%u\n",
                          g_list_model_get_n_items (rtop_history_get_events (self->history)));
  return g_string_free (out, FALSE);
}

static void
dump_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  g_autofree char *text = rtop_window_dump (user_data);

  /* For the end-to-end test, which reads the app's output. */
  g_print ("--- rdmatop dump begin ---\n%s--- rdmatop dump end ---\n", text);
}

static void time_window_action (GSimpleAction *action, GVariant *param, gpointer user_data);

static const GActionEntry win_entries[] = {
  { "show-view", show_view_action, "s", "'overview'", NULL },
  { "show-port", show_port_action, "s", NULL, NULL },
  { "back", back_action, NULL, NULL, NULL },
  { "find", find_action, NULL, NULL, NULL },
  { "refresh", refresh_action, NULL, NULL, NULL },
  { "record", record_action, NULL, "false", NULL },
  { "open", open_action, NULL, NULL, NULL },
  { "go-live", go_live_action, NULL, NULL, NULL },
  { "interval-faster", faster_action, NULL, NULL, NULL },
  { "interval-slower", slower_action, NULL, NULL, NULL },
  { "dump-state", dump_action, NULL, NULL, NULL },
  { "time-window", time_window_action, "i", "5", NULL },
};

/* ---- settings ------------------------------------------------------------ */

static gboolean
minutes_to_seconds (GValue *value, GVariant *variant, gpointer user_data)
{
  int minutes = g_variant_get_int32 (variant);

  g_value_set_double (value, CLAMP (minutes, 1, 60) * 60.0);
  return TRUE;
}

static GVariant *
seconds_to_minutes (const GValue *value, const GVariantType *type, gpointer user_data)
{
  return g_variant_new_int32 ((gint32) round (g_value_get_double (value) / 60));
}

/* Our own action rather than g_settings_create_action(): that one keeps the
 * settings alive after the window is gone. */
static void
time_window_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  RtopWindow *self = user_data;
  int minutes = g_variant_get_int32 (param);

  if (self->settings && (minutes == 1 || minutes == 5 || minutes == 15 || minutes == 60))
    g_settings_set_int (self->settings, "time-window", minutes);
}

static void
time_window_setting_cb (RtopWindow *self)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "time-window");

  g_simple_action_set_state (G_SIMPLE_ACTION (action),
                             g_variant_new_int32 (g_settings_get_int (self->settings, "time-window")));
}

static void
bind_settings (RtopWindow *self)
{
  g_autofree char *last_view = NULL;

  g_signal_connect_object (self->settings, "changed::time-window",
                           G_CALLBACK (time_window_setting_cb), self, G_CONNECT_SWAPPED);
  time_window_setting_cb (self);
  g_settings_bind_with_mapping (self->settings, "time-window", self->overview, "time-window",
                                G_SETTINGS_BIND_GET, minutes_to_seconds, NULL, NULL, NULL);
  g_settings_bind_with_mapping (self->settings, "time-window", self->port_detail, "time-window",
                                G_SETTINGS_BIND_DEFAULT, minutes_to_seconds, seconds_to_minutes,
                                NULL, NULL);
  g_signal_connect_object (self->settings, "changed::interval", G_CALLBACK (interval_setting_cb),
                           self, G_CONNECT_SWAPPED);
  interval_setting_cb (self);

  last_view = g_settings_get_string (self->settings, "last-view");
  if (gtk_stack_get_child_by_name (self->views_stack, last_view))
    gtk_stack_set_visible_child_name (self->views_stack, last_view);
  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
}

static gboolean
rtop_window_close_request (GtkWindow *window)
{
  RtopWindow *self = RTOP_WINDOW (window);
  int width, height;

  if (self->settings)
    {
      gtk_window_get_default_size (window, &width, &height);
      g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));
      if (!gtk_window_is_maximized (window) && width > 0 && height > 0)
        {
          g_settings_set_int (self->settings, "window-width", width);
          g_settings_set_int (self->settings, "window-height", height);
        }
    }
  return GTK_WINDOW_CLASS (rtop_window_parent_class)->close_request (window);
}

/* ---- GObject ------------------------------------------------------------- */

static void
rtop_window_constructed (GObject *object)
{
  RtopWindow *self = RTOP_WINDOW (object);

  G_OBJECT_CLASS (rtop_window_parent_class)->constructed (object);

  g_return_if_fail (self->history != NULL);
  rtop_overview_set_history (self->overview, self->history);
  rtop_processes_view_set_history (self->processes, self->history);
  rtop_events_view_set_history (self->events, self->history);
  rtop_port_detail_set_history (self->port_detail, self->history);
  if (self->settings)
    bind_settings (self);
  views_changed_cb (self);
  g_signal_connect_swapped (self->views_stack, "notify::visible-child-name",
                            G_CALLBACK (views_changed_cb), self);
}

static void
rtop_window_dispose (GObject *object)
{
  RtopWindow *self = RTOP_WINDOW (object);

  g_clear_object (&self->history);
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (rtop_window_parent_class)->dispose (object);
}

static void
rtop_window_finalize (GObject *object)
{
  RtopWindow *self = RTOP_WINDOW (object);

  g_clear_object (&self->interval_labels);
  g_clear_pointer (&self->interval_values, g_array_unref);
  G_OBJECT_CLASS (rtop_window_parent_class)->finalize (object);
}

static void
rtop_window_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  RtopWindow *self = RTOP_WINDOW (object);

  switch (prop_id)
    {
    case PROP_HISTORY:
      self->history = g_value_dup_object (value);
      break;
    case PROP_SETTINGS:
      self->settings = g_value_dup_object (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rtop_window_class_init (RtopWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->constructed = rtop_window_constructed;
  object_class->dispose = rtop_window_dispose;
  object_class->finalize = rtop_window_finalize;
  object_class->set_property = rtop_window_set_property;
  window_class->close_request = rtop_window_close_request;

  props[PROP_HISTORY] =
    g_param_spec_object ("history", NULL, NULL, RTOP_TYPE_HISTORY,
                         G_PARAM_WRITABLE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  props[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL, G_TYPE_SETTINGS,
                         G_PARAM_WRITABLE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);

  g_type_ensure (RTOP_TYPE_OVERVIEW);
  g_type_ensure (RTOP_TYPE_PROCESSES_VIEW);
  g_type_ensure (RTOP_TYPE_EVENTS_VIEW);
  g_type_ensure (RTOP_TYPE_PORT_DETAIL);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/rdmatop/Rdmatop/ui/rtop-window.ui");
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, back_button);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, record_button);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, record_label);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, mode_label);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, title_stack);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, detail_title);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, interval_dropdown);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, main_stack);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, views_stack);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, overview);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, processes);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, events);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, port_detail);

  /* Escape leaves the port page, like Alt+Left (set as accelerators by the app). */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "win.back", NULL);
}

/* The app's CSS, once per display (windows made by tests get it too). */
static void
ensure_style (GtkWidget *widget)
{
  GdkDisplay *display = gtk_widget_get_display (widget);
  g_autoptr(GtkCssProvider) provider = NULL;

  if (g_object_get_data (G_OBJECT (display), "rtop-style"))
    return;
  provider = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (provider, "/io/github/rdmatop/Rdmatop/style.css");
  gtk_style_context_add_provider_for_display (display, GTK_STYLE_PROVIDER (provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  g_object_set_data_full (G_OBJECT (display), "rtop-style", g_steal_pointer (&provider),
                          g_object_unref);
}

static void
rtop_window_init (RtopWindow *self)
{
  ensure_style (GTK_WIDGET (self));
  gtk_widget_init_template (GTK_WIDGET (self));
  rtop_a11y_fix_mnemonics (GTK_WIDGET (self));
  g_action_map_add_action_entries (G_ACTION_MAP (self), win_entries, G_N_ELEMENTS (win_entries), self);
  setup_intervals (self);
  rtop_window_set_replay (self, NULL);
}

RtopWindow *
rtop_window_new (GtkApplication *application, RtopHistory *history, GSettings *settings)
{
  return g_object_new (RTOP_TYPE_WINDOW,
                       "application", application,
                       "history", history,
                       "settings", settings,
                       NULL);
}
