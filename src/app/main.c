/* main.c: rdmatop, the desktop app. */
#include "config.h"

#include <locale.h>
#include <glib/gi18n.h>

#include "rtop-application.h"
#include "rtop-remote.h"

int
main (int argc, char *argv[])
{
  g_autoptr(RtopApplication) app = NULL;
  /* Lets an uninstalled build run translated (RDMATOP_LOCALEDIR=build/po),
   * as rdmatop-cli does; the 'translation' test in suite data uses it. */
  const char *localedir = g_getenv ("RDMATOP_LOCALEDIR");

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, localedir && *localedir ? localedir : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  /* Before GTK reads its environment. */
  rtop_remote_setup_environment ();

  app = rtop_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
