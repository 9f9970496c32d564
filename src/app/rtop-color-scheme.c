/* rtop-color-scheme.c: the desktop's light or dark style, followed.
 *
 * GTK 4 before libadwaita's style manager does not read the desktop's
 * colour scheme (GNOME's "Dark Style", KDE's colour scheme): the XDG
 * desktop portal's Settings interface says it, as
 * org.freedesktop.appearance color-scheme (0 no preference, 1 dark,
 * 2 light), and tells every change.  Read and watched asynchronously,
 * so the window never waits for the portal; without one, nothing
 * changes. */
#include "config.h"

#include "rtop-color-scheme.h"

#define PORTAL_NAME "org.freedesktop.portal.Desktop"
#define PORTAL_PATH "/org/freedesktop/portal/desktop"
#define SETTINGS_IFACE "org.freedesktop.portal.Settings"
#define APPEARANCE "org.freedesktop.appearance"
#define COLOR_SCHEME "color-scheme"

/* The portal's Read wraps the value in one variant too many (older
 * portals in two): unwrap to the uint32. */
static gboolean
scheme_from_variant (GVariant *value, guint32 *scheme)
{
  g_autoptr(GVariant) inner = NULL;

  if (value == NULL)
    return FALSE;
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_UINT32))
    {
      *scheme = g_variant_get_uint32 (value);
      return TRUE;
    }
  if (!g_variant_is_of_type (value, G_VARIANT_TYPE_VARIANT))
    return FALSE;
  inner = g_variant_get_variant (value);
  return scheme_from_variant (inner, scheme);
}

static void
apply (GtkSettings *settings, GVariant *value)
{
  guint32 scheme;

  if (settings != NULL && scheme_from_variant (value, &scheme))
    g_object_set (settings, "gtk-application-prefer-dark-theme", scheme == 1, NULL);
}

static void
changed_cb (GDBusConnection *bus, const char *sender, const char *path, const char *iface,
            const char *signal, GVariant *parameters, gpointer data)
{
  g_autoptr(GVariant) value = NULL;
  g_autoptr(GtkSettings) settings = NULL;
  const char *ns, *key;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(ssv)")))
    return;
  g_variant_get (parameters, "(&s&sv)", &ns, &key, &value);
  settings = g_weak_ref_get (data);
  if (g_str_equal (ns, APPEARANCE) && g_str_equal (key, COLOR_SCHEME))
    apply (settings, value);
}

static void
read_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, NULL);
  g_autoptr(GtkSettings) settings = g_weak_ref_get (data);
  g_autoptr(GVariant) value = NULL;

  if (reply != NULL && settings != NULL)
    {
      g_variant_get (reply, "(v)", &value);
      apply (settings, value);
    }
}

static void
weak_ref_free (gpointer data)
{
  g_weak_ref_clear (data);
  g_free (data);
}

static GWeakRef *
weak_ref_new (GtkSettings *settings)
{
  GWeakRef *ref = g_new0 (GWeakRef, 1);

  g_weak_ref_init (ref, settings);
  return ref;
}

static void
bus_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr(GDBusConnection) bus = g_bus_get_finish (result, NULL);
  GWeakRef *ref = data;
  g_autoptr(GtkSettings) settings = g_weak_ref_get (ref);

  if (bus == NULL || settings == NULL)
    {
      weak_ref_free (ref);
      return;
    }
  /* Subscribed first, so that a change during the read is not lost. */
  g_dbus_connection_signal_subscribe (bus, PORTAL_NAME, SETTINGS_IFACE, "SettingChanged", PORTAL_PATH,
                                      APPEARANCE, G_DBUS_SIGNAL_FLAGS_NONE, changed_cb,
                                      weak_ref_new (settings), weak_ref_free);
  g_dbus_connection_call (bus, PORTAL_NAME, PORTAL_PATH, SETTINGS_IFACE, "Read",
                          g_variant_new ("(ss)", APPEARANCE, COLOR_SCHEME), G_VARIANT_TYPE ("(v)"),
                          G_DBUS_CALL_FLAGS_NONE, 5000, NULL, read_cb, ref);
}

void
rtop_color_scheme_follow (GtkSettings *settings)
{
  g_return_if_fail (GTK_IS_SETTINGS (settings));

  /* A theme named by the user (GTK_THEME) is what the user wants. */
  if (g_getenv ("GTK_THEME") != NULL)
    return;
  g_bus_get (G_BUS_TYPE_SESSION, NULL, bus_cb, weak_ref_new (settings));
}
