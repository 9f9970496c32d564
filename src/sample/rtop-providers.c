/* rtop-providers.c: the provider counter table.  Every RDMA driver names
 * and scales its counters its own way (the PMA data counters count 4-byte
 * words, efa counts bytes, rxe counts no bytes at all), so each counter
 * rdmatop understands is listed here, provider by provider.
 *
 * Each row names one kernel counter of one provider ("*" for counters every
 * provider of that kind has: the IB PMA counters in ports/<p>/counters/ and
 * the netdev statistics) and says which canonical metric it feeds, with what
 * scale, and what it means for health.  Counter names were checked against
 * the kernel sources (drivers/infiniband/hw/{mlx5,efa,erdma,bnxt_re,irdma,hns},
 * sw/rxe, core/sysfs.c).
 *
 * Never counting anything twice:
 * - a traffic metric (bytes, packets) takes its parts from one tier only:
 *   the provider's own rows if any of them is present on the port, else the
 *   generic PMA rows, else the attached netdev's statistics (the last resort,
 *   for rxe and others whose hardware counters have no bytes): these are
 *   the same bytes seen from different places;
 * - an event metric (drops, errors, retransmits, congestion) adds the
 *   provider's rows and the PMA rows, which count different events (a PMA
 *   discard is not an mlx5 out_of_buffer);
 * - counters with the same meaning from two places (ECN marks and the CNPs
 *   they cause, flush errors that follow another error, retransmitted bytes
 *   next to retransmitted packets) keep their class but feed no metric;
 * - loss on a link shows at both ends, and is the sender's: the requester
 *   counts its retransmits (rxe completer_retry_err, mlx5 roce_adp_retrans),
 *   the sequence-error NAKs it receives (rxe rcvd_seq_err, mlx5
 *   packet_seq_err) and its ack timeouts; the responder counts the gap and
 *   the resent packets it receives (rxe out_of_seq_request and
 *   duplicate_request, mlx5 out_of_sequence and duplicate_request, bnxt_re
 *   dup_req and oos_drop_count).  The responder's rows feed no metric and are
 *   listed in peer_loss_rows: they keep their class but do not flag the
 *   receiving port, so one lossy link is one port in trouble, counted once. */
#include "config.h"

#include <string.h>

#include "rtop-providers-private.h"

#define ANY RTOP_PROVIDER_ANY

/* Short names keep the table readable. */
#define HW RTOP_COUNTER_SOURCE_NETLINK     /* also matches SYSFS_HW: same counters */
#define PMA RTOP_COUNTER_SOURCE_SYSFS_PORT
#define DEV RTOP_COUNTER_SOURCE_SYSFS_DEVICE
#define NETDEV RTOP_COUNTER_SOURCE_NETDEV
#define GPU RTOP_COUNTER_SOURCE_GPU

#define NONE RTOP_METRIC_N
#define TX_BYTES RTOP_METRIC_TX_BYTES
#define RX_BYTES RTOP_METRIC_RX_BYTES
#define TX_PKTS RTOP_METRIC_TX_PACKETS
#define RX_PKTS RTOP_METRIC_RX_PACKETS
#define DROPS RTOP_METRIC_DROPS
#define READ_BYTES RTOP_METRIC_RDMA_READ_BYTES
#define WRITE_BYTES RTOP_METRIC_RDMA_WRITE_BYTES
#define RETRANS RTOP_METRIC_RETRANSMITS
#define LINK_ERRS RTOP_METRIC_LINK_ERRORS
#define TRANSPORT_ERRS RTOP_METRIC_TRANSPORT_ERRORS
#define OP_ERRS RTOP_METRIC_OPERATION_ERRORS
#define CONGESTION RTOP_METRIC_CONGESTION

#define INFO RTOP_COUNTER_CLASS_INFO
#define DATA RTOP_COUNTER_CLASS_DATA
#define DROP RTOP_COUNTER_CLASS_DROP
#define RETX RTOP_COUNTER_CLASS_RETRANSMIT
#define LINK RTOP_COUNTER_CLASS_LINK_ERROR
#define TRANSPORT RTOP_COUNTER_CLASS_TRANSPORT_ERROR
#define OP RTOP_COUNTER_CLASS_OPERATION_ERROR
#define CONG RTOP_COUNTER_CLASS_CONGESTION

static const RtopProviderRule rules[] = {
  /* IB PMA counters (core/sysfs.c), any provider with a MAD agent: mlx5,
   * mlx4, hfi1, qib.  The data counters count 4-byte words. */
  { ANY, "port_xmit_data", PMA, TX_BYTES, 4, DATA },
  { ANY, "port_rcv_data", PMA, RX_BYTES, 4, DATA },
  { ANY, "port_xmit_packets", PMA, TX_PKTS, 1, DATA },
  { ANY, "port_rcv_packets", PMA, RX_PKTS, 1, DATA },
  { ANY, "unicast_xmit_packets", PMA, NONE, 1, DATA },
  { ANY, "unicast_rcv_packets", PMA, NONE, 1, DATA },
  { ANY, "multicast_xmit_packets", PMA, NONE, 1, DATA },
  { ANY, "multicast_rcv_packets", PMA, NONE, 1, DATA },
  { ANY, "symbol_error", PMA, LINK_ERRS, 1, LINK },
  { ANY, "link_error_recovery", PMA, LINK_ERRS, 1, LINK },
  { ANY, "link_downed", PMA, LINK_ERRS, 1, LINK },
  { ANY, "port_rcv_errors", PMA, LINK_ERRS, 1, LINK },
  { ANY, "port_rcv_remote_physical_errors", PMA, LINK_ERRS, 1, LINK },
  { ANY, "port_rcv_switch_relay_errors", PMA, LINK_ERRS, 1, LINK },
  { ANY, "local_link_integrity_errors", PMA, LINK_ERRS, 1, LINK },
  { ANY, "excessive_buffer_overrun_errors", PMA, LINK_ERRS, 1, LINK },
  { ANY, "port_rcv_constraint_errors", PMA, LINK_ERRS, 1, LINK },
  { ANY, "port_xmit_constraint_errors", PMA, LINK_ERRS, 1, LINK },
  { ANY, "port_xmit_discards", PMA, DROPS, 1, DROP },
  { ANY, "VL15_dropped", PMA, DROPS, 1, DROP },
  /* Ticks spent waiting for credits: congestion, but not a count of events. */
  { ANY, "port_xmit_wait", PMA, NONE, 1, CONG },

  /* The attached netdev: only for providers whose counters have no bytes.
   * It also counts the netdev's non-RDMA traffic; the source says so. */
  { ANY, "tx_bytes", NETDEV, TX_BYTES, 1, DATA },
  { ANY, "rx_bytes", NETDEV, RX_BYTES, 1, DATA },
  { ANY, "tx_packets", NETDEV, TX_PKTS, 1, DATA },
  { ANY, "rx_packets", NETDEV, RX_PKTS, 1, DATA },

  /* mlx5 (hw/mlx5/counters.c).  Bytes and packets come from the PMA rows,
   * unless the optional RoCE counters (packets_op_cnts, enabled with
   * `rdma statistic set ... optional-counters`) are on: they are 64 bits
   * wide, where the PMA data counters of an HCA without the extended set
   * stop at 2^32 - 1 (a few seconds of traffic at 100 Gb/s). */
  { "mlx5", "rdma_tx_bytes", HW, TX_BYTES, 1, DATA, TRUE },
  { "mlx5", "rdma_rx_bytes", HW, RX_BYTES, 1, DATA, TRUE },
  { "mlx5", "rdma_tx_packets", HW, TX_PKTS, 1, DATA, TRUE },
  { "mlx5", "rdma_rx_packets", HW, RX_PKTS, 1, DATA, TRUE },
  { "mlx5", "rx_write_requests", HW, NONE, 1, DATA },
  { "mlx5", "rx_read_requests", HW, NONE, 1, DATA },
  { "mlx5", "rx_atomic_requests", HW, NONE, 1, DATA },
  { "mlx5", "out_of_buffer", HW, DROPS, 1, DROP },
  { "mlx5", "out_of_sequence", HW, NONE, 1, TRANSPORT },
  { "mlx5", "packet_seq_err", HW, TRANSPORT_ERRS, 1, TRANSPORT },
  { "mlx5", "implied_nak_seq_err", HW, TRANSPORT_ERRS, 1, TRANSPORT },
  { "mlx5", "local_ack_timeout_err", HW, TRANSPORT_ERRS, 1, TRANSPORT },
  { "mlx5", "rnr_nak_retry_err", HW, TRANSPORT_ERRS, 1, TRANSPORT },
  /* Requests the peer sent again: its retransmits, not ours. */
  { "mlx5", "duplicate_request", HW, NONE, 1, RETX },
  { "mlx5", "roce_adp_retrans", HW, RETRANS, 1, RETX },
  { "mlx5", "roce_adp_retrans_to", HW, NONE, 1, RETX },
  { "mlx5", "resp_local_length_error", HW, OP_ERRS, 1, OP },
  { "mlx5", "resp_cqe_error", HW, OP_ERRS, 1, OP },
  { "mlx5", "req_cqe_error", HW, OP_ERRS, 1, OP },
  { "mlx5", "req_remote_invalid_request", HW, OP_ERRS, 1, OP },
  { "mlx5", "req_remote_access_errors", HW, OP_ERRS, 1, OP },
  { "mlx5", "resp_remote_access_errors", HW, OP_ERRS, 1, OP },
  /* Flushes follow another error or a QP torn down with work queued. */
  { "mlx5", "resp_cqe_flush_error", HW, NONE, 1, OP },
  { "mlx5", "req_cqe_flush_error", HW, NONE, 1, OP },
  { "mlx5", "np_cnp_sent", HW, CONGESTION, 1, CONG },
  { "mlx5", "rp_cnp_handled", HW, CONGESTION, 1, CONG },
  { "mlx5", "rp_cnp_ignored", HW, NONE, 1, CONG },
  /* Each ECN-marked packet makes the NP send a CNP: counted there. */
  { "mlx5", "np_ecn_marked_roce_packets", HW, NONE, 1, CONG },

  /* EFA (hw/efa/efa_verbs.c): port counters, then the device-level admin ones. */
  { "efa", "tx_bytes", HW, TX_BYTES, 1, DATA },
  { "efa", "rx_bytes", HW, RX_BYTES, 1, DATA },
  { "efa", "tx_pkts", HW, TX_PKTS, 1, DATA },
  { "efa", "rx_pkts", HW, RX_PKTS, 1, DATA },
  { "efa", "rx_drops", HW, DROPS, 1, DROP },
  { "efa", "send_bytes", HW, NONE, 1, DATA },
  { "efa", "recv_bytes", HW, NONE, 1, DATA },
  { "efa", "send_wrs", HW, NONE, 1, DATA },
  { "efa", "recv_wrs", HW, NONE, 1, DATA },
  { "efa", "rdma_read_wrs", HW, NONE, 1, DATA },
  { "efa", "rdma_read_bytes", HW, READ_BYTES, 1, DATA },
  { "efa", "rdma_read_wr_err", HW, OP_ERRS, 1, OP },
  { "efa", "rdma_read_resp_bytes", HW, NONE, 1, DATA },
  { "efa", "rdma_write_wrs", HW, NONE, 1, DATA },
  { "efa", "rdma_write_bytes", HW, WRITE_BYTES, 1, DATA },
  { "efa", "rdma_write_wr_err", HW, OP_ERRS, 1, OP },
  { "efa", "rdma_write_recv_bytes", HW, NONE, 1, DATA },
  { "efa", "retrans_pkts", HW, RETRANS, 1, RETX },
  { "efa", "retrans_bytes", HW, NONE, 1, RETX },
  { "efa", "retrans_timeout_events", HW, TRANSPORT_ERRS, 1, TRANSPORT },
  { "efa", "unresponsive_remote_events", HW, TRANSPORT_ERRS, 1, TRANSPORT },
  { "efa", "impaired_remote_conn_events", HW, TRANSPORT_ERRS, 1, TRANSPORT },
  { "efa", "submitted_cmds", DEV, NONE, 1, INFO },
  { "efa", "completed_cmds", DEV, NONE, 1, INFO },
  { "efa", "keep_alive_rcvd", DEV, NONE, 1, INFO },
  { "efa", "cmds_err", DEV, NONE, 1, OP },
  { "efa", "no_completion_cmds", DEV, NONE, 1, OP },
  { "efa", "alloc_pd_err", DEV, NONE, 1, OP },
  { "efa", "create_qp_err", DEV, NONE, 1, OP },
  { "efa", "create_cq_err", DEV, NONE, 1, OP },
  { "efa", "reg_mr_err", DEV, NONE, 1, OP },
  { "efa", "alloc_ucontext_err", DEV, NONE, 1, OP },
  { "efa", "create_ah_err", DEV, NONE, 1, OP },
  { "efa", "mmap_err", DEV, NONE, 1, OP },

  /* erdma (hw/erdma/erdma_verbs.c): the first patches and Alibaba's kernels
   * prefix "hw_", mainline does not.  A kernel has one spelling, so both
   * rows of a pair never meet on one port. */
  { "erdma", "hw_tx_bytes_cnt", HW, TX_BYTES, 1, DATA },
  { "erdma", "tx_bytes_cnt", HW, TX_BYTES, 1, DATA },
  { "erdma", "hw_rx_bytes_cnt", HW, RX_BYTES, 1, DATA },
  { "erdma", "rx_bytes_cnt", HW, RX_BYTES, 1, DATA },
  { "erdma", "hw_tx_packets_cnt", HW, TX_PKTS, 1, DATA },
  { "erdma", "tx_packets_cnt", HW, TX_PKTS, 1, DATA },
  { "erdma", "hw_rx_packets_cnt", HW, RX_PKTS, 1, DATA },
  { "erdma", "rx_packets_cnt", HW, RX_PKTS, 1, DATA },
  { "erdma", "hw_tx_reqs_cnt", HW, NONE, 1, DATA },
  { "erdma", "tx_reqs_cnt", HW, NONE, 1, DATA },
  { "erdma", "hw_disable_drop_cnt", HW, DROPS, 1, DROP },
  { "erdma", "tx_disable_drop_cnt", HW, DROPS, 1, DROP },
  { "erdma", "hw_bps_limit_drop_cnt", HW, DROPS, 1, DROP },
  { "erdma", "tx_bps_limit_drop_cnt", HW, DROPS, 1, DROP },
  { "erdma", "hw_pps_limit_drop_cnt", HW, DROPS, 1, DROP },
  { "erdma", "tx_pps_limit_drop_cnt", HW, DROPS, 1, DROP },
  { "erdma", "hw_rx_disable_drop_cnt", HW, DROPS, 1, DROP },
  { "erdma", "rx_disable_drop_cnt", HW, DROPS, 1, DROP },
  { "erdma", "hw_rx_bps_limit_drop_cnt", HW, DROPS, 1, DROP },
  { "erdma", "rx_bps_limit_drop_cnt", HW, DROPS, 1, DROP },
  { "erdma", "hw_rx_pps_limit_drop_cnt", HW, DROPS, 1, DROP },
  { "erdma", "rx_pps_limit_drop_cnt", HW, DROPS, 1, DROP },

  /* rxe (sw/rxe/rxe_hw_counters.c): no bytes; those come from the netdev. */
  { "rxe", "sent_pkts", HW, TX_PKTS, 1, DATA },
  { "rxe", "rcvd_pkts", HW, RX_PKTS, 1, DATA },
  { "rxe", "rdma_sends", HW, NONE, 1, DATA },
  { "rxe", "rdma_recvs", HW, NONE, 1, DATA },
  /* The requester timed out and sent again: our retransmits. */
  { "rxe", "completer_retry_err", HW, RETRANS, 1, RETX },
  { "rxe", "duplicate_request", HW, NONE, 1, RETX },
  { "rxe", "retry_exceeded_err", HW, TRANSPORT_ERRS, 1, TRANSPORT },
  { "rxe", "retry_rnr_exceeded_err", HW, TRANSPORT_ERRS, 1, TRANSPORT },
  { "rxe", "rcvd_seq_err", HW, TRANSPORT_ERRS, 1, TRANSPORT },
  { "rxe", "out_of_seq_request", HW, NONE, 1, TRANSPORT },
  /* RNR NAKs are flow control (no receive posted yet), not failures. */
  { "rxe", "rcvd_rnr_err", HW, NONE, 1, TRANSPORT },
  { "rxe", "send_rnr_err", HW, NONE, 1, TRANSPORT },
  { "rxe", "send_err", HW, OP_ERRS, 1, OP },
  { "rxe", "link_downed", HW, LINK_ERRS, 1, LINK },
  { "rxe", "ack_deferred", HW, NONE, 1, INFO },

  /* bnxt_re (hw/bnxt_re/hw_counters.c). */
  { "bnxt_re", "tx_bytes", HW, TX_BYTES, 1, DATA },
  { "bnxt_re", "rx_bytes", HW, RX_BYTES, 1, DATA },
  { "bnxt_re", "tx_pkts", HW, TX_PKTS, 1, DATA },
  { "bnxt_re", "rx_pkts", HW, RX_PKTS, 1, DATA },
  { "bnxt_re", "rx_roce_discards", HW, DROPS, 1, DROP },
  { "bnxt_re", "tx_roce_discards", HW, DROPS, 1, DROP },
  { "bnxt_re", "rx_out_of_buffer", HW, DROPS, 1, DROP },
  { "bnxt_re", "rx_roce_errors", HW, LINK_ERRS, 1, LINK },
  { "bnxt_re", "tx_roce_errors", HW, LINK_ERRS, 1, LINK },
  { "bnxt_re", "to_retransmits", HW, RETRANS, 1, RETX },
  { "bnxt_re", "dup_req", HW, NONE, 1, RETX },
  { "bnxt_re", "seq_err_naks_rcvd", HW, TRANSPORT_ERRS, 1, TRANSPORT },
  { "bnxt_re", "max_retry_exceeded", HW, TRANSPORT_ERRS, 1, TRANSPORT },
  { "bnxt_re", "missing_resp", HW, TRANSPORT_ERRS, 1, TRANSPORT },
  { "bnxt_re", "oos_drop_count", HW, NONE, 1, TRANSPORT },
  { "bnxt_re", "rnr_naks_rcvd", HW, NONE, 1, TRANSPORT },
  { "bnxt_re", "unrecoverable_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "bad_resp_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "local_qp_op_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "local_protection_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "mem_mgmt_op_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "remote_invalid_req_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "remote_access_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "remote_op_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_exceed_max", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_length_mismatch", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_exceeds_wqe", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_opcode_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_rx_invalid_rkey", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_rx_domain_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_rx_no_perm", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_rx_range_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_tx_invalid_rkey", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_tx_domain_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_tx_no_perm", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_tx_range_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_irrq_oflow", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_unsup_opcode", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_unaligned_atomic", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_rem_inv_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_mem_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_srq_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_cmp_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_invalid_dup_rkey", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_wqe_format_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_cq_load_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_srq_load_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_tx_pci_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "res_rx_pci_err", HW, OP_ERRS, 1, OP },
  { "bnxt_re", "tx_cnp_pkts", HW, CONGESTION, 1, CONG },
  { "bnxt_re", "rx_cnp_pkts", HW, CONGESTION, 1, CONG },
  { "bnxt_re", "rx_ecn_marked_pkts", HW, NONE, 1, CONG },
  /* The driver fills it from tx_bcast_pkts: despite the name, not errors. */
  { "bnxt_re", "recoverable_errors", HW, NONE, 1, INFO },
  { "bnxt_re", "tx_read_req", HW, NONE, 1, DATA },
  { "bnxt_re", "tx_write_req", HW, NONE, 1, DATA },
  { "bnxt_re", "tx_send_req", HW, NONE, 1, DATA },
  { "bnxt_re", "rx_read_req", HW, NONE, 1, DATA },
  { "bnxt_re", "rx_write_req", HW, NONE, 1, DATA },
  { "bnxt_re", "rx_send_req", HW, NONE, 1, DATA },

  /* irdma (hw/irdma/verbs.c): IPv4 and IPv6 are separate counters; the
   * metric is their sum.  Older kernels prefix the TCP ones with "tcp". */
  { "irdma", "ip4OutOctets", HW, TX_BYTES, 1, DATA },
  { "irdma", "ip6OutOctets", HW, TX_BYTES, 1, DATA },
  { "irdma", "ip4InOctets", HW, RX_BYTES, 1, DATA },
  { "irdma", "ip6InOctets", HW, RX_BYTES, 1, DATA },
  { "irdma", "ip4OutPkts", HW, TX_PKTS, 1, DATA },
  { "irdma", "ip6OutPkts", HW, TX_PKTS, 1, DATA },
  { "irdma", "ip4InPkts", HW, RX_PKTS, 1, DATA },
  { "irdma", "ip6InPkts", HW, RX_PKTS, 1, DATA },
  { "irdma", "ip4InDiscards", HW, DROPS, 1, DROP },
  { "irdma", "ip6InDiscards", HW, DROPS, 1, DROP },
  { "irdma", "ip4InTruncatedPkts", HW, DROPS, 1, DROP },
  { "irdma", "ip6InTruncatedPkts", HW, DROPS, 1, DROP },
  { "irdma", "ip4OutNoRoutes", HW, DROPS, 1, DROP },
  { "irdma", "ip6OutNoRoutes", HW, DROPS, 1, DROP },
  { "irdma", "RetransSegs", HW, RETRANS, 1, RETX },
  { "irdma", "tcpRetransSegs", HW, RETRANS, 1, RETX },
  { "irdma", "InOptErrors", HW, TRANSPORT_ERRS, 1, TRANSPORT },
  { "irdma", "tcpInOptErrors", HW, TRANSPORT_ERRS, 1, TRANSPORT },
  { "irdma", "InProtoErrors", HW, TRANSPORT_ERRS, 1, TRANSPORT },
  { "irdma", "tcpInProtoErrors", HW, TRANSPORT_ERRS, 1, TRANSPORT },
  { "irdma", "rxVlanErrors", HW, LINK_ERRS, 1, LINK },
  { "irdma", "cnpSent", HW, CONGESTION, 1, CONG },
  { "irdma", "cnpHandled", HW, CONGESTION, 1, CONG },
  { "irdma", "cnpIgnored", HW, NONE, 1, CONG },
  { "irdma", "RxECNMrkd", HW, NONE, 1, CONG },
  { "irdma", "InRdmaReads", HW, NONE, 1, DATA },
  { "irdma", "InRdmaWrites", HW, NONE, 1, DATA },
  { "irdma", "InRdmaSends", HW, NONE, 1, DATA },
  { "irdma", "OutRdmaReads", HW, NONE, 1, DATA },
  { "irdma", "OutRdmaWrites", HW, NONE, 1, DATA },
  { "irdma", "OutRdmaSends", HW, NONE, 1, DATA },
  { "irdma", "RxUDP", HW, NONE, 1, DATA },
  { "irdma", "TxUDP", HW, NONE, 1, DATA },

  /* hns (hw/hns/hns_roce_main.c): packets but no bytes. */
  { "hns", "tx_pkt", HW, TX_PKTS, 1, DATA },
  { "hns", "rx_pkt", HW, RX_PKTS, 1, DATA },
  { "hns", "tx_err_pkt", HW, LINK_ERRS, 1, LINK },
  { "hns", "rx_err_pkt", HW, LINK_ERRS, 1, LINK },
  { "hns", "tx_cnp_pkt", HW, CONGESTION, 1, CONG },
  { "hns", "rx_cnp_pkt", HW, CONGESTION, 1, CONG },
  { "hns", "trp_get_mpt_err_pkt", HW, OP_ERRS, 1, OP },
  { "hns", "trp_get_irrl_err_pkt", HW, OP_ERRS, 1, OP },
  { "hns", "ecn_db", HW, NONE, 1, CONG },
  { "hns", "rx_rc_pkt", HW, NONE, 1, DATA },
  { "hns", "rx_uc_pkt", HW, NONE, 1, DATA },
  { "hns", "rx_ud_pkt", HW, NONE, 1, DATA },
  { "hns", "rx_xrc_pkt", HW, NONE, 1, DATA },
  { "hns", "tx_rc_pkt", HW, NONE, 1, DATA },
  { "hns", "tx_uc_pkt", HW, NONE, 1, DATA },
  { "hns", "tx_ud_pkt", HW, NONE, 1, DATA },
  { "hns", "tx_xrc_pkt", HW, NONE, 1, DATA },

  /* NVIDIA GPUs through NVML (rtop-gpu-nvml.c).  The throughput field
   * values count KiB for the whole GPU: they are on its "all links" port. */
  { "nvml", "nvlink_data_tx_kib", GPU, TX_BYTES, 1024, DATA },
  { "nvml", "nvlink_data_rx_kib", GPU, RX_BYTES, 1024, DATA },
  /* A replay is the link sending a flit again after a bad CRC. */
  { "nvml", "nvlink_replay_errors", GPU, RETRANS, 1, RETX },
  { "nvml", "nvlink_recovery_errors", GPU, LINK_ERRS, 1, LINK },
  { "nvml", "nvlink_crc_errors", GPU, LINK_ERRS, 1, LINK },
  { "nvml", "nvlink_crc_flit_errors", GPU, LINK_ERRS, 1, LINK },
  { "nvml", "nvlink_crc_data_errors", GPU, LINK_ERRS, 1, LINK },
  { "nvml", "nvlink_ecc_data_errors", GPU, LINK_ERRS, 1, LINK },

  /* AMD GPUs through AMD SMI (rtop-gpu-amdsmi.c): per XGMI link, data
   * read (received) and written (sent) in KB, taken as KiB; the XGMI
   * block's ECC counts for the whole GPU. */
  { "amdsmi", "xgmi_write_kb", GPU, TX_BYTES, 1024, DATA },
  { "amdsmi", "xgmi_read_kb", GPU, RX_BYTES, 1024, DATA },
  { "amdsmi", "xgmi_ecc_correctable", GPU, LINK_ERRS, 1, LINK },
  { "amdsmi", "xgmi_ecc_uncorrectable", GPU, LINK_ERRS, 1, LINK },
  { "amdsmi", "xgmi_ecc_deferred", GPU, NONE, 1, LINK },
};

/* Counters outside the table keep their raw name; their class is guessed
 * from these patterns, first match wins.  Matching ignores case (irdma
 * names are CamelCase). */
typedef enum {
  MATCH_CONTAINS,            /* anywhere in the name */
  MATCH_ERROR_CONTAINS,      /* anywhere, and the name reads as an error count */
} MatchKind;

typedef struct {
  MatchKind kind;
  const char *text;
  RtopCounterClass klass;
} ClassPattern;

static const ClassPattern class_patterns[] = {
  { MATCH_CONTAINS, "retrans", RETX },
  { MATCH_CONTAINS, "retry", RETX },
  { MATCH_CONTAINS, "cnp", CONG },
  { MATCH_CONTAINS, "ecn", CONG },
  { MATCH_CONTAINS, "drop", DROP },
  { MATCH_CONTAINS, "discard", DROP },
  { MATCH_CONTAINS, "crc", LINK },
  { MATCH_CONTAINS, "symbol", LINK },
  { MATCH_ERROR_CONTAINS, "link", LINK },
  { MATCH_ERROR_CONTAINS, "seq", TRANSPORT },
  { MATCH_ERROR_CONTAINS, "timeout", TRANSPORT },
  { MATCH_ERROR_CONTAINS, "nak", TRANSPORT },
  { MATCH_ERROR_CONTAINS, "rnr", TRANSPORT },
  { MATCH_ERROR_CONTAINS, "", OP },
};

/* What makes a lower-cased name an error count. */
static const char * const error_suffixes[] = { "err", "errs", "error", "errors" };
static const char * const error_infixes[] = { "_err_", "_error_", "fail" };

/* Device drivers (basename of <dev>/device/driver, up to the first '.',
 * which auxiliary drivers add) to provider ids. */
typedef struct {
  const char *key;
  const char *provider;
} ProviderKey;

static const ProviderKey drivers[] = {
  { "mlx5_core", "mlx5" }, { "mlx5_ib", "mlx5" },
  { "mlx4_core", "mlx4" }, { "mlx4_ib", "mlx4" },
  { "efa", "efa" },
  { "erdma", "erdma" },
  { "bnxt_en", "bnxt_re" }, { "bnxt_re", "bnxt_re" },
  { "irdma", "irdma" }, { "ice", "irdma" }, { "i40e", "irdma" }, { "idpf", "irdma" },
  { "hns3", "hns" }, { "hns_roce_hw_v2", "hns" }, { "hns_roce", "hns" },
  { "mana", "mana" }, { "mana_ib", "mana" },
  { "qede", "qedr" }, { "qedr", "qedr" },
  { "ionic", "ionic" }, { "ionic_rdma", "ionic" },
  { "hfi1", "hfi1" },
  { "ib_qib", "qib" },
  { "cxgb4", "cxgb4" }, { "iw_cxgb4", "cxgb4" },
  { "vmw_pvrdma", "pvrdma" },
};

/* Device name prefixes, for devices without a driver link (rxe, siw) or
 * whose driver is not in the list above.  Longest prefixes first. */
static const ProviderKey name_prefixes[] = {
  { "rxe", "rxe" },
  { "siw", "siw" },
  { "mlx5_", "mlx5" },
  { "mlx4_", "mlx4" },
  { "efa_", "efa" },
  { "erdma_", "erdma" },
  { "bnxt_re", "bnxt_re" },
  { "irdma", "irdma" },
  { "i40iw", "irdma" },
  { "hns_", "hns" },
  { "mana_", "mana" },
  { "qedr", "qedr" },
  { "ionic_", "ionic" },
  { "hfi1_", "hfi1" },
  { "qib", "qib" },
  { "cxgb4_", "cxgb4" },
  { "vmw_pvrdma", "pvrdma" },
};

/* Rules by counter name, built once: name -> GPtrArray of rules. */
static GHashTable *
rule_index (void)
{
  static GHashTable *index = NULL;

  if (g_once_init_enter (&index))
    {
      GHashTable *table = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                 (GDestroyNotify) g_ptr_array_unref);

      for (guint i = 0; i < G_N_ELEMENTS (rules); i++)
        {
          GPtrArray *list = g_hash_table_lookup (table, rules[i].counter);

          if (list == NULL)
            {
              list = g_ptr_array_new ();
              g_hash_table_insert (table, (gpointer) rules[i].counter, list);
            }
          g_ptr_array_add (list, (gpointer) &rules[i]);
        }
      g_once_init_leave (&index, table);
    }
  return index;
}

const RtopProviderRule *
rtop_provider_rules (guint *n_rules)
{
  if (n_rules != NULL)
    *n_rules = G_N_ELEMENTS (rules);
  return rules;
}

static const char *
lookup_key (const ProviderKey *table, gsize n, const char *key, gboolean prefix)
{
  for (gsize i = 0; i < n; i++)
    if (prefix ? g_str_has_prefix (key, table[i].key) : strcmp (key, table[i].key) == 0)
      return table[i].provider;
  return NULL;
}

const char *
rtop_provider_detect (const char *dev_name, const char *driver)
{
  const char *provider = NULL;

  if (driver != NULL)
    {
      g_autofree char *module = g_strndup (driver, strcspn (driver, "."));

      provider = lookup_key (drivers, G_N_ELEMENTS (drivers), module, FALSE);
    }
  if (provider == NULL && dev_name != NULL)
    provider = lookup_key (name_prefixes, G_N_ELEMENTS (name_prefixes), dev_name, TRUE);
  return provider != NULL ? provider : "unknown";
}

static gboolean
source_matches (RtopCounterSource rule, RtopCounterSource counter)
{
  /* ports/<p>/hw_counters holds the same counters STAT_GET returns. */
  if (rule == RTOP_COUNTER_SOURCE_NETLINK)
    return counter == RTOP_COUNTER_SOURCE_NETLINK || counter == RTOP_COUNTER_SOURCE_SYSFS_HW;
  return rule == counter;
}

/* The provider's own row wins over a generic one.  any_source ignores where
 * the counter was read (for classify(), which is not told). */
const RtopProviderRule *
rtop_provider_find_rule (const char *provider, const char *counter, RtopCounterSource source,
                         gboolean any_source)
{
  GPtrArray *list;
  const RtopProviderRule *generic = NULL;

  if (counter == NULL)
    return NULL;
  list = g_hash_table_lookup (rule_index (), counter);
  if (list == NULL)
    return NULL;
  for (guint i = 0; i < list->len; i++)
    {
      const RtopProviderRule *rule = g_ptr_array_index (list, i);

      if (!any_source && !source_matches (rule->source, source))
        continue;
      if (provider != NULL && strcmp (rule->provider, provider) == 0)
        return rule;
      if (generic == NULL && strcmp (rule->provider, ANY) == 0)
        generic = rule;
    }
  return generic;
}

static gboolean
reads_as_error (const char *lower)
{
  for (guint i = 0; i < G_N_ELEMENTS (error_suffixes); i++)
    if (g_str_has_suffix (lower, error_suffixes[i]))
      return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (error_infixes); i++)
    if (strstr (lower, error_infixes[i]) != NULL)
      return TRUE;
  return FALSE;
}

RtopCounterClass
rtop_provider_classify_by_pattern (const char *counter)
{
  g_autofree char *lower = g_ascii_strdown (counter, -1);
  gboolean is_error = reads_as_error (lower);

  for (guint i = 0; i < G_N_ELEMENTS (class_patterns); i++)
    {
      const ClassPattern *pattern = &class_patterns[i];

      if (pattern->kind == MATCH_ERROR_CONTAINS && !is_error)
        continue;
      if (strstr (lower, pattern->text) != NULL)
        return pattern->klass;
    }
  return INFO;
}

RtopCounterClass
rtop_provider_classify (const char *provider, const char *counter)
{
  const RtopProviderRule *rule;

  if (counter == NULL)
    return INFO;
  rule = rtop_provider_find_rule (provider, counter, RTOP_COUNTER_SOURCE_NETLINK, TRUE);
  return rule != NULL ? rule->klass : rtop_provider_classify_by_pattern (counter);
}

static RtopCounterClass
classify_counter (const char *provider, const RtopCounter *counter)
{
  const RtopProviderRule *rule = rtop_provider_find_rule (provider, counter->name,
                                                          counter->source, FALSE);

  return rule != NULL ? rule->klass : rtop_provider_classify_by_pattern (counter->name);
}

void
rtop_provider_classify_counters (const char *provider, GPtrArray *counters)
{
  if (counters == NULL)
    return;
  for (guint i = 0; i < counters->len; i++)
    {
      RtopCounter *counter = g_ptr_array_index (counters, i);

      counter->klass = classify_counter (provider, counter);
    }
}

/* The responder's view of the sender's loss (see the top of this file). */
static const struct {
  const char *provider;
  const char *counter;
} peer_loss_rows[] = {
  { "mlx5", "out_of_sequence" },
  { "mlx5", "duplicate_request" },
  { "rxe", "out_of_seq_request" },
  { "rxe", "duplicate_request" },
  { "bnxt_re", "dup_req" },
  { "bnxt_re", "oos_drop_count" },
};

gboolean
rtop_provider_is_peer_loss (const char *provider, const RtopCounter *counter)
{
  g_return_val_if_fail (counter != NULL, FALSE);
  if (provider == NULL || !source_matches (RTOP_COUNTER_SOURCE_NETLINK, counter->source))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (peer_loss_rows); i++)
    if (strcmp (peer_loss_rows[i].provider, provider) == 0 &&
        strcmp (peer_loss_rows[i].counter, counter->name) == 0)
      return TRUE;
  return FALSE;
}

gboolean
rtop_provider_has_byte_counters (const char *provider)
{
  return rtop_provider_has_metric (provider, RTOP_METRIC_TX_BYTES);
}

gboolean
rtop_provider_has_metric (const char *provider, RtopMetricId metric)
{
  if (provider == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (rules); i++)
    if (rules[i].metric == metric && !rules[i].optional && strcmp (rules[i].provider, provider) == 0)
      return TRUE;
  return FALSE;
}
