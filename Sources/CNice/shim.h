// libnice (ICE) and the GLib main-loop API it runs on.
#include <glib.h>
#include <glib-object.h>
#include <gio/gio.h>
#include <nice/agent.h>
#include <nice/address.h>
#include <nice/candidate.h>
#include <nice/debug.h>
#include <nice/nice-version.h>
