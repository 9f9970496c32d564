/* gen-reuse-seeds.c: seeds for fuzz-reuse: a reply as the kernel builds it
 * (the unit tests' builders) and edits of the kinds the reuse must tell
 * apart: new values, a new sequence number, a renamed counter, a longer
 * name, another port.
 * Usage: gen-reuse-seeds OUTDIR */
#define _GNU_SOURCE
#include <string.h>
#include "../support/nl-test-msgs.h"

#include <errno.h>
#include <glib/gstdio.h>

#include "recorded-replies.h"

typedef struct { guint16 offset; guint8 xor; } Edit;

static void
write_seed (const char *dir, const char *name, const struct nlmsghdr *nlh,
            const Edit *edits, guint n_edits)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GByteArray) out = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  guint8 len[2] = { nlh->nlmsg_len & 0xff, nlh->nlmsg_len >> 8 };

  g_byte_array_append (out, len, 2);
  g_byte_array_append (out, (const guint8 *) nlh, nlh->nlmsg_len);
  for (guint i = 0; i < n_edits; i++)
    {
      guint8 e[3] = { edits[i].offset & 0xff, edits[i].offset >> 8, edits[i].xor };

      g_byte_array_append (out, e, 3);
    }
  if (!g_file_set_contents (path, (const char *) out->data, out->len, &error))
    g_error ("%s", error->message);
}

/* Where a string sits in the message, to aim an edit at it. */
static guint16
find (const struct nlmsghdr *nlh, const char *what)
{
  const guint8 *p = memmem (nlh, nlh->nlmsg_len, what, strlen (what));

  g_assert_nonnull (p);
  return (guint16) (p - (const guint8 *) nlh);
}

/* Each message of a real kernel's GET, PORT_GET and STAT_GET replies, as
 * it came (the fuzzer makes the edits). */
static void
recorded_seed_cb (guint32 cmd, const guint8 *datagram, gsize len, guint n, gpointer user_data)
{
  static guint32 msg[8192 / 4];
  guint k = 0;

  for (gsize off = 0; off + sizeof (struct nlmsghdr) <= len;)
    {
      const struct nlmsghdr *nlh = (const void *) (datagram + off);
      g_autofree char *name = NULL;
      gsize mlen = nlh->nlmsg_len;

      if (mlen < sizeof *nlh || mlen > len - off || mlen > sizeof msg)
        break;
      memcpy (msg, nlh, mlen);
      if (nlh->nlmsg_type != NLMSG_DONE && nlh->nlmsg_type != NLMSG_ERROR)
        {
          name = g_strdup_printf ("guest-%04u-%u", n, k++);
          write_seed (user_data, name, (const struct nlmsghdr *) msg, NULL, 0);
        }
      off += NLMSG_ALIGN (mlen);
    }
}

int
main (int argc, char **argv)
{
  static const NlTestCounter rxe[] = {
    { "ack_deferred", 5 }, { "completer_retry_err", 3 }, { "duplicate_request", 0 },
    { "rcvd_pkts", 2000 }, { "rcvd_seq_err", 1 }, { "sent_pkts", 1000 },
  };
  static const NlTestCounter mlx5[] = {
    { "duplicate_request", 0 }, { "implied_nak_seq_err", 0 }, { "local_ack_timeout_err", 2 },
    { "out_of_buffer", 7 }, { "out_of_sequence", 1 }, { "packet_seq_err", 0 },
    { "rdma_rx_bytes", G_MAXUINT32 }, { "rdma_tx_bytes", G_GUINT64_CONSTANT (1) << 40 },
    { "rnr_nak_retry_err", 0 }, { "rx_read_requests", 100 }, { "rx_write_requests", 900 },
  };
  static NlTestBuf buf;
  struct nlmsghdr *nlh;
  const char *dir;

  if (argc != 2 && argc != 3)
    {
      g_printerr ("usage: %s OUTDIR [RECORDED-REPLIES]\n", argv[0]);
      return 2;
    }
  dir = argv[1];
  if (g_mkdir_with_parents (dir, 0755) < 0)
    g_error ("%s: %s", dir, g_strerror (errno));
  if (argc == 3 && !recorded_replies_foreach (argv[2], recorded_seed_cb, (gpointer) dir))
    return 1;

  nlh = nl_test_stat (buf.bytes, 7, 4711, 2, "rxe0", 1, rxe, G_N_ELEMENTS (rxe));
  write_seed (dir, "stat-same", nlh, NULL, 0);
  {
    guint16 seq = offsetof (struct nlmsghdr, nlmsg_seq);
    guint16 name = find (nlh, "sent_pkts");
    const Edit values[] = { { (guint16) (name + 16), 0x40 } };
    const Edit seq_only[] = { { seq, 0x01 }, { (guint16) (seq + 4), 0x10 } };
    const Edit renamed[] = { { name, 0x01 } };
    const Edit shortened[] = { { (guint16) (name + 8), 's' } };
    const Edit port[] = { { find (nlh, "rxe0") + 8, 0x03 } };

    write_seed (dir, "stat-values", nlh, values, G_N_ELEMENTS (values));
    write_seed (dir, "stat-seq", nlh, seq_only, G_N_ELEMENTS (seq_only));
    write_seed (dir, "stat-renamed", nlh, renamed, G_N_ELEMENTS (renamed));
    write_seed (dir, "stat-name-cut", nlh, shortened, G_N_ELEMENTS (shortened));
    write_seed (dir, "stat-port", nlh, port, G_N_ELEMENTS (port));
  }
  nlh = nl_test_stat (buf.bytes, 9, 4711, 1, "mlx5_0", 1, mlx5, G_N_ELEMENTS (mlx5));
  write_seed (dir, "stat-mlx5", nlh, NULL, 0);

  nlh = nl_test_device_fw (buf.bytes, 3, 4711, 1, "mlx5_0", 1, "28.39.1002");
  write_seed (dir, "device", nlh, NULL, 0);
  {
    const Edit fw[] = { { find (nlh, "28.39"), 0x01 } };
    const Edit seq[] = { { offsetof (struct nlmsghdr, nlmsg_seq), 0x05 } };

    write_seed (dir, "device-fw", nlh, fw, G_N_ELEMENTS (fw));
    write_seed (dir, "device-seq", nlh, seq, G_N_ELEMENTS (seq));
  }
  nlh = nl_test_port (buf.bytes, 4, 4711, 2, "rxe0", 1, 4, 5, "d0");
  write_seed (dir, "port", nlh, NULL, 0);
  {
    const Edit ndev[] = { { find (nlh, "d0"), 0x01 } };

    write_seed (dir, "port-ndev", nlh, ndev, G_N_ELEMENTS (ndev));
  }
  return 0;
}
