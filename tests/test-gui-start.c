/* test-gui-start.c: the window as a new user first sees it.
 *
 * On a computer without RDMA (no devices, or no RDMA in the kernel) the
 * overview is the page of no devices, libadwaita's status page: its title
 * says so, its description says why, it gives the whole Soft-RoCE recipe,
 * and its buttons connect to a host, open a recording and try again; Tab
 * reaches each of them and no label.  Record cannot be used while no source has a
 * device.  Processes and Compare Ports say what is missing (a device, not
 * a process or a check), and say the ordinary thing once ports come.
 * Tab and Shift+Tab leave the overview's table at once and go round the
 * window's controls, never through a label; a port's page opens on its
 * first control.
 * The style follows the desktop's light or dark choice (a stand-in
 * portal says it).
 * Screenshots go to the build directory (light, and dark with
 * ADW_DEBUG_COLOR_SCHEME=prefer-dark), at 1600×1000 and 800×600. */
#include "config.h"

#include <string.h>
#include <adwaita.h>

#include "support/gui-fixtures.h"
#include "support/gui-test-util.h"
#include "rtop-overview-section-private.h"
#include "rtop-session.h"
#include "rtop-window-private.h"

static const GuiPortSpec two_ports[] = {
  { "rxe0", 1, "rxe", "roce", 4, 10, 1e9, 2e9, 1000, 2000, 0, 0, 0, TRUE },
  { "rxe1", 1, "rxe", "roce", 4, 10, 0, 0, 0, 0, 0, 0, 0, TRUE },
};

static const GuiPortSpec many_ports[] = {
  { "rxe0", 1, "rxe", "roce", 4, 10, 1e9, 2e9, 1000, 2000, 0, 0, 0, TRUE },
  { "rxe1", 1, "rxe", "roce", 4, 10, 0, 0, 0, 0, 0, 0, 0, TRUE },
  { "rxe2", 1, "rxe", "roce", 4, 10, 0, 0, 0, 0, 0, 0, 0, TRUE },
  { "rxe3", 1, "rxe", "roce", 4, 10, 0, 0, 0, 0, 0, 0, 0, TRUE },
  { "rxe4", 1, "rxe", "roce", 4, 10, 0, 0, 0, 0, 0, 0, 0, TRUE },
  { "rxe5", 1, "rxe", "roce", 4, 10, 0, 0, 0, 0, 0, 0, 0, TRUE },
  { "rxe6", 1, "rxe", "roce", 4, 10, 0, 0, 0, 0, 0, 0, 0, TRUE },
  { "rxe7", 1, "rxe", "roce", 4, 10, 0, 0, 0, 0, 0, 0, 0, TRUE },
};

static RtopWindow *
open_window (RtopSession *session, GSettings *settings, int width, int height)
{
  RtopWindow *window = rtop_window_new (NULL, session, settings);

  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));
  gui_test_wait_mapped (GTK_WIDGET (window));
  gui_test_spin ();
  return window;
}

static void
ingest (RtopSession *session, RtopSnapshot *snapshot)
{
  rtop_snapshot_seal (snapshot);
  rtop_history_ingest (rtop_session_get_history (session), snapshot);
  rtop_snapshot_unref (snapshot);
  gui_test_spin ();
}

/* The mapped label under root whose text holds text, or NULL. */
static GtkWidget *
find_label (GtkWidget *root, const char *text)
{
  if (GTK_IS_LABEL (root) && gtk_widget_get_mapped (root) &&
      strstr (gtk_label_get_label (GTK_LABEL (root)), text) != NULL)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_label (child, text);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The mapped button under root that activates action, or NULL. */
static GtkWidget *
find_action_button (GtkWidget *root, const char *action)
{
  if (GTK_IS_BUTTON (root) && gtk_widget_get_mapped (root) &&
      g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (root)), action) == 0)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_action_button (child, action);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *
overview_of (RtopWindow *window)
{
  return GTK_WIDGET (window->overview);
}

static gboolean
dump_has (RtopWindow *window, const char *line)
{
  g_autofree char *dump = rtop_window_dump (window);

  return strstr (dump, line) != NULL;
}

static void
shoot (RtopWindow *window, const char *name)
{
  g_autoptr(GdkTexture) texture = gui_test_screenshot (GTK_WIDGET (window), name);
  GuiTestPixels *pixels = gui_test_pixels_new (texture, GTK_WIDGET (window));

  gui_test_assert_page (pixels);
  gui_test_pixels_free (pixels);
}

/* The application's actions the page uses, counted (no application
 * runs in the test). */
static void
count_cb (GSimpleAction *action, GVariant *param, gpointer data)
{
  guint *counts = data;

  counts[g_str_equal (g_action_get_name (G_ACTION (action)), "connect-host") ? 0 : 1]++;
}

static void
add_app_actions (RtopWindow *window, guint counts[2])
{
  g_autoptr(GSimpleActionGroup) group = g_simple_action_group_new ();
  const GActionEntry entries[] = {
    { "connect-host", count_cb, NULL, NULL, NULL, { 0 } },
    { "refresh", count_cb, NULL, NULL, NULL, { 0 } },
  };

  g_action_map_add_action_entries (G_ACTION_MAP (group), entries, G_N_ELEMENTS (entries), counts);
  gtk_widget_insert_action_group (GTK_WIDGET (window), "app", G_ACTION_GROUP (group));
}

static char *
describe_focus (GtkWidget *focus)
{
  GString *out = g_string_new (NULL);

  for (GtkWidget *w = focus; w != NULL && !GTK_IS_ROOT (w); w = gtk_widget_get_parent (w))
    g_string_append_printf (out, "%s%s", out->len ? " < " : "", G_OBJECT_TYPE_NAME (w));
  return g_string_free (out, FALSE);
}

/* Moves the focus as Tab (or Shift+Tab) does; returns the new focus. */
static GtkWidget *
press_tab (RtopWindow *window, GtkDirectionType direction)
{
  GtkWidget *focus;
  g_autofree char *path = NULL;

  g_signal_emit_by_name (window, "move-focus", direction);
  gui_test_spin ();
  focus = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_nonnull (focus);
  path = describe_focus (focus);
  g_test_message ("%s: %s", direction == GTK_DIR_TAB_FORWARD ? "Tab" : "Shift+Tab", path);
  return focus;
}

static void
assert_no_devices_page (RtopWindow *window)
{
  GtkWidget *overview = overview_of (window);

  g_assert_cmpstr (rtop_overview_section_get_state (RTOP_OVERVIEW_SECTION (overview)), ==, "empty");
  g_assert_nonnull (find_label (overview, "No RDMA Devices on This Computer"));
  g_assert_nonnull (find_label (overview, "sudo modprobe rdma_rxe\n"));
  g_assert_nonnull (find_label (overview, "sudo rdma link add rxe0 type rxe netdev IFACE"));
  g_assert_nonnull (find_action_button (overview, "app.connect-host"));
  g_assert_nonnull (find_action_button (overview, "win.open"));
  g_assert_nonnull (find_action_button (overview, "app.refresh"));
}

static void
run_no_devices (int width, int height, const char *suffix)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  RtopSession *session = rtop_session_new (settings);
  RtopWindow *window;
  RtopSnapshot *s;
  g_autofree char *shot = g_strdup_printf ("gui-start-no-rdma%s.png", suffix);

  guint counts[2] = { 0, 0 };

  g_settings_reset (settings, "last-view");
  window = open_window (session, settings, width, height);
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  add_app_actions (window, counts);

  /* No RDMA in this kernel. */
  s = gui_fixture_snapshot (1, 1.0, NULL, 0);
  s->status = RTOP_STATUS_NO_NETLINK;
  s->status_message = g_strdup ("No RDMA netlink.");
  ingest (session, s);
  assert_no_devices_page (window);
  g_assert_nonnull (find_label (overview_of (window), "no RDMA support"));
  g_assert_false (rtop_session_can_record (session));
  /* Never the commands (focused, their text is selected); shown, the
   * page's focus is its first control.  The buttons do what they say. */
  {
    GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
    g_autofree char *where = describe_focus (focus);

    g_test_message ("focus: %s", where);
    g_assert_false (GTK_IS_LABEL (focus));
  }
  rtop_section_focus (RTOP_SECTION (window->overview));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == find_action_button (overview_of (window), "app.connect-host"));
  g_signal_emit_by_name (find_action_button (overview_of (window), "app.connect-host"), "clicked");
  g_signal_emit_by_name (find_action_button (overview_of (window), "app.refresh"), "clicked");
  g_assert_cmpuint (counts[0], ==, 1);
  g_assert_cmpuint (counts[1], ==, 1);
  shoot (window, shot);

  /* RDMA, but no devices: the same page and actions. */
  ingest (session, gui_fixture_snapshot (2, 1.0, NULL, 0));
  assert_no_devices_page (window);
  g_assert_nonnull (find_label (overview_of (window), "reports no devices"));
  g_assert_false (rtop_session_can_record (session));
  /* The other pages say that a device is what is missing. */
  g_assert_true (dump_has (window, "processes-none\tNo RDMA Devices\n"));
  /* (Compare Ports is built when first opened.) */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.compare", NULL);
  gui_test_spin ();
  g_assert_true (dump_has (window, "compare-empty\tNo Ports to Compare\n"));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "overview");
  gui_test_spin ();
  if (*suffix == '\0')
    {
      /* Past the stack's transition (only for the picture). */
      gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "processes");
      gui_test_run_for (600);
      shoot (window, "gui-start-no-rdma-processes.png");
      gtk_widget_activate_action (GTK_WIDGET (window), "win.compare", NULL);
      gui_test_run_for (600);
      shoot (window, "gui-start-no-rdma-compare.png");
      gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "overview");
    }

  /* Devices come: Record can be used, the pages say the ordinary thing. */
  ingest (session, gui_fixture_snapshot (3, 1.0, two_ports, G_N_ELEMENTS (two_ports)));
  ingest (session, gui_fixture_snapshot (4, 1.0, two_ports, G_N_ELEMENTS (two_ports)));
  g_assert_true (rtop_session_can_record (session));
  g_assert_cmpstr (rtop_overview_section_get_state (RTOP_OVERVIEW_SECTION (overview_of (window))), ==, "ports");
  g_assert_true (dump_has (window, "processes-none\tNo Processes Use RDMA\n"));
  g_assert_true (dump_has (window, "compare-empty\tNo Ports Checked\n"));

  /* And go again: nothing to record. */
  ingest (session, gui_fixture_snapshot (5, 1.0, NULL, 0));
  g_assert_false (rtop_session_can_record (session));

  gtk_window_destroy (GTK_WINDOW (window));
  gui_test_wait_gone ((gpointer *) &window);
  g_assert_finalize_object (session);
  g_settings_reset (settings, "last-view");
}

static void
test_no_devices (void)
{
  run_no_devices (1600, 1000, "");
}

static void
test_no_devices_small (void)
{
  run_no_devices (800, 600, "-800");
}

/* The page of no devices is libadwaita's status page: its title says
 * what is missing, its description why (no RDMA in the kernel, or no
 * device), and Tab goes from its first button to the others, never to
 * a label or the page itself. */
static void
test_no_devices_status_page (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  RtopSession *session = rtop_session_new (settings);
  static const char *const actions[] = { "app.connect-host", "win.open", "app.refresh" };
  GtkWidget *buttons[G_N_ELEMENTS (actions)];
  RtopWindow *window;
  RtopSnapshot *s;
  GtkWidget *page, *focus, *command, *opened_focus;
  guint steps = 0, nowhere = 0;
  guint counts[2] = { 0, 0 };

  g_settings_reset (settings, "last-view");
  window = open_window (session, settings, 1600, 1000);
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  add_app_actions (window, counts);

  s = gui_fixture_snapshot (1, 1.0, NULL, 0);
  s->status = RTOP_STATUS_NO_NETLINK;
  ingest (session, s);
  g_assert_cmpstr (rtop_overview_section_get_state (window->overview), ==, "empty");
  /* The page takes the focus as it opens (nothing had it). */
  opened_focus = gtk_root_get_focus (GTK_ROOT (window));
  page = gtk_stack_get_visible_child (window->overview->state_stack);
  g_assert_true (ADW_IS_STATUS_PAGE (page));
  g_assert_true (gtk_widget_get_mapped (page));
  g_assert_cmpstr (adw_status_page_get_title (ADW_STATUS_PAGE (page)), ==, "No RDMA Devices on This Computer");
  g_assert_cmpstr (adw_status_page_get_description (ADW_STATUS_PAGE (page)), ==,
                   "This kernel has no RDMA support loaded.");
  g_assert_cmpstr (adw_status_page_get_icon_name (ADW_STATUS_PAGE (page)), ==, "network-offline-symbolic");
  /* The commands: to be selected with the mouse, not a Tab stop. */
  command = find_label (page, "sudo modprobe rdma_rxe\n");
  g_assert_nonnull (command);
  g_assert_true (gtk_label_get_selectable (GTK_LABEL (command)));
  g_assert_false (gtk_widget_get_focusable (command));
  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    {
      buttons[i] = find_action_button (page, actions[i]);
      g_assert_nonnull (buttons[i]);
      g_assert_true (gtk_widget_is_sensitive (buttons[i]));
      g_assert_true (gtk_widget_get_focusable (buttons[i]));
    }
  g_assert_true (buttons[0] == window->overview->empty_connect);
  g_assert_true (opened_focus == buttons[0]);

  /* From its first button, Tab goes to the next ones, in order, and
   * round the window back to the first. */
  rtop_section_focus (RTOP_SECTION (window->overview));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == buttons[0]);
  focus = press_tab (window, GTK_DIR_TAB_FORWARD);
  g_assert_true (focus == buttons[1]);
  focus = press_tab (window, GTK_DIR_TAB_FORWARD);
  g_assert_true (focus == buttons[2]);
  do
    {
      /* Past the window's last control, the focus may be nowhere for a
       * step, never longer (a label that took Tab without the focus
       * would keep it nowhere). */
      g_signal_emit_by_name (window, "move-focus", GTK_DIR_TAB_FORWARD);
      gui_test_spin ();
      focus = gtk_root_get_focus (GTK_ROOT (window));
      {
        g_autofree char *where = describe_focus (focus);
        g_test_message ("Tab: %s", focus != NULL ? where : "(nowhere)");
      }
      if (focus == NULL)
        {
          g_assert_cmpuint (++nowhere, <=, 1);
          continue;
        }
      g_assert_false (GTK_IS_LABEL (focus));
      /* Into the page, Tab comes to its first button. */
      if (gtk_widget_is_ancestor (focus, page))
        g_assert_true (focus == buttons[0]);
    }
  while (focus != buttons[0] && ++steps < 40);
  g_assert_true (focus == buttons[0]);
  focus = press_tab (window, GTK_DIR_TAB_BACKWARD);
  g_assert_false (gtk_widget_is_ancestor (focus, page));

  /* RDMA, but no devices: the description says so. */
  ingest (session, gui_fixture_snapshot (2, 1.0, NULL, 0));
  g_assert_true (gtk_stack_get_visible_child (window->overview->state_stack) == page);
  g_assert_cmpstr (adw_status_page_get_description (ADW_STATUS_PAGE (page)), ==,
                   "The kernel has RDMA support but reports no devices.");

  gtk_window_destroy (GTK_WINDOW (window));
  gui_test_wait_gone ((gpointer *) &window);
  g_assert_finalize_object (session);
  g_settings_reset (settings, "last-view");
}


static gboolean
in_table (GtkWidget *focus)
{
  return gtk_widget_get_ancestor (focus, GTK_TYPE_COLUMN_VIEW) != NULL;
}

/* From the overview's table, Tab leaves it at once, goes round every
 * control of the window (never a label) and comes back in a few steps;
 * Shift+Tab leaves it at once too. */
static void
test_tab_path (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  RtopSession *session = rtop_session_new (settings);
  RtopWindow *window;
  GtkWidget *focus;
  guint steps = 0;

  g_settings_reset (settings, "last-view");
  window = open_window (session, settings, 1600, 1000);
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  ingest (session, gui_fixture_snapshot (1, 1.0, many_ports, G_N_ELEMENTS (many_ports)));
  ingest (session, gui_fixture_snapshot (2, 1.0, many_ports, G_N_ELEMENTS (many_ports)));
  rtop_section_focus (RTOP_SECTION (window->overview));
  gui_test_spin ();
  g_assert_true (in_table (gtk_root_get_focus (GTK_ROOT (window))));

  do
    {
      focus = press_tab (window, GTK_DIR_TAB_FORWARD);
      g_assert_false (GTK_IS_LABEL (focus));
      /* Eight rows, but one step out of the table. */
      if (steps == 0)
        g_assert_false (in_table (focus));
      steps++;
    }
  while (!in_table (focus) && steps < 40);
  g_assert_true (in_table (focus));
  g_assert_cmpuint (steps, <=, 12);

  focus = press_tab (window, GTK_DIR_TAB_BACKWARD);
  g_assert_false (in_table (focus));
  focus = press_tab (window, GTK_DIR_TAB_FORWARD);
  g_assert_true (in_table (focus));

  /* A port's page opens on its first control (the time window), not on
   * its title. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-port", "s", "rxe0/1"));
  gui_test_spin ();
  focus = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_nonnull (focus);
  g_assert_false (GTK_IS_LABEL (focus));
  g_assert_nonnull (gtk_widget_get_ancestor (focus, GTK_TYPE_DROP_DOWN));
  g_assert_true (gtk_widget_is_ancestor (focus, GTK_WIDGET (window->port_detail)));

  gtk_window_destroy (GTK_WINDOW (window));
  gui_test_wait_gone ((gpointer *) &window);
  g_assert_finalize_object (session);
}

/* The port page at 800×600, light and dark: for the eye (the axis
 * labels, the graphs). */
static void
test_port_page_small (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  RtopSession *session = rtop_session_new (settings);
  RtopWindow *window;

  g_settings_reset (settings, "last-view");
  window = open_window (session, settings, 800, 600);
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  for (guint i = 1; i <= 30; i++)
    ingest (session, gui_fixture_snapshot (i, 1.0, two_ports, G_N_ELEMENTS (two_ports)));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-port", "s", "rxe0/1"));
  gui_test_run_for (600);
  shoot (window, "gui-start-port-800.png");
  gtk_window_destroy (GTK_WINDOW (window));
  gui_test_wait_gone ((gpointer *) &window);
  g_assert_finalize_object (session);
}

/* ---- the desktop's dark style, through a stand-in portal ---------------- */

/* libadwaita asks the portal once, synchronously, when it starts, and then
 * listens for SettingChanged: the stand-in answers from a thread of its own
 * on a connection of its own, and the check runs in a subprocess whose
 * libadwaita starts after it. */
static const char portal_xml[] =
  "<node><interface name='org.freedesktop.portal.Settings'>"
  "<method name='Read'><arg type='s' direction='in'/><arg type='s' direction='in'/>"
  "<arg type='v' direction='out'/></method>"
  "<signal name='SettingChanged'><arg type='s'/><arg type='s'/><arg type='v'/></signal>"
  "</interface></node>";

typedef struct {
  GMutex lock;
  GCond cond;
  int state;                  /* 0 starting, 1 serving, -1 could not */
  GDBusConnection *bus;
  GMainContext *context;
  GMainLoop *loop;
} Portal;

static void
portal_call_cb (GDBusConnection *bus, const char *sender, const char *path, const char *iface,
                const char *method, GVariant *parameters, GDBusMethodInvocation *invocation,
                gpointer data)
{
  const char *ns, *key;

  g_variant_get (parameters, "(&s&s)", &ns, &key);
  if (g_str_equal (ns, "org.freedesktop.appearance") && g_str_equal (key, "color-scheme"))
    /* As portals answer: the value in one more variant. */
    g_dbus_method_invocation_return_value (invocation,
                                           g_variant_new ("(v)", g_variant_new_variant (g_variant_new_uint32 (1))));
  else
    g_dbus_method_invocation_return_dbus_error (invocation, "org.freedesktop.portal.Error.NotFound", key);
}

static gpointer
portal_thread (gpointer data)
{
  static const GDBusInterfaceVTable vtable = { portal_call_cb, NULL, NULL, { 0 } };
  Portal *portal = data;
  g_autoptr(GDBusNodeInfo) info = g_dbus_node_info_new_for_xml (portal_xml, NULL);
  g_autofree char *address = g_dbus_address_get_for_bus_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  g_autoptr(GVariant) owned = NULL;
  guint reply = 0;

  g_main_context_push_thread_default (portal->context);
  if (address != NULL)
    portal->bus = g_dbus_connection_new_for_address_sync (address,
                                                          G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT
                                                          | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                          NULL, NULL, NULL);
  if (portal->bus != NULL)
    owned = g_dbus_connection_call_sync (portal->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                         "org.freedesktop.DBus", "RequestName",
                                         g_variant_new ("(su)", "org.freedesktop.portal.Desktop", 4),
                                         G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
  if (owned != NULL)
    g_variant_get (owned, "(u)", &reply);
  g_mutex_lock (&portal->lock);
  portal->state = reply == 1 && g_dbus_connection_register_object (portal->bus, "/org/freedesktop/portal/desktop",
                                                                   info->interfaces[0], &vtable,
                                                                   NULL, NULL, NULL) != 0 ? 1 : -1;
  g_cond_signal (&portal->cond);
  g_mutex_unlock (&portal->lock);
  if (portal->state == 1)
    g_main_loop_run (portal->loop);
  g_main_context_pop_thread_default (portal->context);
  return NULL;
}

static gboolean
style_is_dark (gpointer data)
{
  return adw_style_manager_get_dark (adw_style_manager_get_default ()) == GPOINTER_TO_INT (data);
}

static double
luminance_of (GtkWidget *widget, const char *name)
{
  GdkRGBA c;

  g_assert_true (gtk_style_context_lookup_color (gtk_widget_get_style_context (widget), name, &c));
  return 0.2126 * c.red + 0.7152 * c.green + 0.0722 * c.blue;
}

/* libadwaita's dark window background, and the app's own dark colours
 * over it (style-dark.css: light text for an OK verdict). */
static gboolean
window_is_dark (gpointer data)
{
  return luminance_of (data, "window_bg_color") < 0.3 && luminance_of (data, "rtop_ok_text") > 0.5;
}

static gboolean
window_is_light (gpointer data)
{
  return luminance_of (data, "window_bg_color") > 0.7 && luminance_of (data, "rtop_ok_text") < 0.45;
}

static void
dark_style_child (void)
{
  Portal portal = { 0 };
  GThread *thread;
  GtkWidget *window;
  g_autoptr(GSettings) settings = NULL;
  g_autoptr(RtopSession) session = NULL;

  g_mutex_init (&portal.lock);
  g_cond_init (&portal.cond);
  portal.context = g_main_context_new ();
  portal.loop = g_main_loop_new (portal.context, FALSE);
  thread = g_thread_new ("portal", portal_thread, &portal);
  g_mutex_lock (&portal.lock);
  while (portal.state == 0)
    g_cond_wait (&portal.cond, &portal.lock);
  g_mutex_unlock (&portal.lock);
  /* The session bus is the test's own (dbus-run-session): no real portal
   * owns the name. */
  g_assert_cmpint (portal.state, ==, 1);

  /* The desktop prefers dark: so does the app, window and all. */
  adw_init ();
  g_assert_true (style_is_dark (GINT_TO_POINTER (TRUE)));
  settings = g_settings_new (APP_ID);
  session = rtop_session_new (settings);
  window = GTK_WIDGET (open_window (session, settings, 800, 600));
  gui_test_wait_until (window_is_dark, window, "the window's dark background");
  /* The user switches to light. */
  g_dbus_connection_emit_signal (portal.bus, NULL, "/org/freedesktop/portal/desktop",
                                 "org.freedesktop.portal.Settings", "SettingChanged",
                                 g_variant_new ("(ssv)", "org.freedesktop.appearance", "color-scheme",
                                                g_variant_new_uint32 (2)), NULL);
  gui_test_wait_until (style_is_dark, GINT_TO_POINTER (FALSE), "the light style the portal then says");
  gui_test_wait_until (window_is_light, window, "the window's light colours");
  gtk_window_destroy (GTK_WINDOW (window));
  g_main_loop_quit (portal.loop);
  g_thread_join (thread);
  g_main_loop_unref (portal.loop);
  g_main_context_unref (portal.context);
  g_clear_object (&portal.bus);
  g_mutex_clear (&portal.lock);
  g_cond_clear (&portal.cond);
  g_print ("followed\n");
}

static void
test_dark_style_follows_system (void)
{
  if (g_test_subprocess ())
    {
      dark_style_child ();
      return;
    }
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout ("*followed*");
}

int
main (int argc, char **argv)
{
  gui_test_init (&argc, &argv);
  g_test_add_func ("/gui/start/no-devices", test_no_devices);
  g_test_add_func ("/gui/start/no-devices-status-page", test_no_devices_status_page);
  g_test_add_func ("/gui/start/tab-path", test_tab_path);
  g_test_add_func ("/gui/start/port-page-800", test_port_page_small);
  /* The dark variant's ADW_DEBUG_COLOR_SCHEME stands above the portal:
   * the portal's style is checked in the light one. */
  if (!gui_test_theme_is_dark ())
    g_test_add_func ("/gui/start/dark-style-follows-system", test_dark_style_follows_system);
  g_test_add_func ("/gui/start/no-devices-800", test_no_devices_small);
  return g_test_run ();
}
