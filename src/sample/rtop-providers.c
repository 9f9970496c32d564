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

#define ANY "*"

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
static const RtopProviderRule *
find_rule (const char *provider, const char *counter, RtopCounterSource source,
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

static RtopCounterClass
classify_by_pattern (const char *counter)
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
  rule = find_rule (provider, counter, RTOP_COUNTER_SOURCE_NETLINK, TRUE);
  return rule != NULL ? rule->klass : classify_by_pattern (counter);
}

static RtopCounterClass
classify_counter (const char *provider, const RtopCounter *counter)
{
  const RtopProviderRule *rule = find_rule (provider, counter->name, counter->source, FALSE);

  return rule != NULL ? rule->klass : classify_by_pattern (counter->name);
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

/* Metric assembly.  Tiers, best first: the provider's own rows, generic
 * rows (PMA), the netdev. */
enum { TIER_PROVIDER, TIER_GENERIC, TIER_NETDEV, N_TIERS };

/* The source string names this many parts, then "+ N more". */
#define NAMED_PARTS 3

typedef struct {
  guint n_parts;
  guint64 value;
  double rate;
  gboolean all_rates;
  const RtopCounter *parts[NAMED_PARTS];
  guint32 scales[NAMED_PARTS];
} Sum;

/* Metrics that count the same traffic whichever tier reports it. */
static gboolean
metric_is_traffic (RtopMetricId id)
{
  switch (id)
    {
    case RTOP_METRIC_TX_BYTES:
    case RTOP_METRIC_RX_BYTES:
    case RTOP_METRIC_TX_PACKETS:
    case RTOP_METRIC_RX_PACKETS:
    case RTOP_METRIC_RDMA_READ_BYTES:
    case RTOP_METRIC_RDMA_WRITE_BYTES:
      return TRUE;
    case RTOP_METRIC_DROPS:
    case RTOP_METRIC_RETRANSMITS:
    case RTOP_METRIC_ERRORS:
    case RTOP_METRIC_LINK_ERRORS:
    case RTOP_METRIC_TRANSPORT_ERRORS:
    case RTOP_METRIC_OPERATION_ERRORS:
    case RTOP_METRIC_CONGESTION:
    case RTOP_METRIC_N:
    default:
      return FALSE;
    }
}

static guint
rule_tier (const RtopProviderRule *rule)
{
  if (strcmp (rule->provider, ANY) != 0)
    return TIER_PROVIDER;
  return rule->source == NETDEV ? TIER_NETDEV : TIER_GENERIC;
}

static guint64
add_saturating (guint64 a, guint64 b)
{
  return a > G_MAXUINT64 - b ? G_MAXUINT64 : a + b;
}

static guint64
scale_saturating (guint64 value, guint32 scale)
{
  return scale != 0 && value > G_MAXUINT64 / scale ? G_MAXUINT64 : value * scale;
}

static void
sum_add (Sum *sum, const RtopCounter *counter, guint32 scale)
{
  if (scale == 0)
    scale = 1;
  if (sum->n_parts == 0)
    sum->all_rates = TRUE;
  if (sum->n_parts < NAMED_PARTS)
    {
      sum->parts[sum->n_parts] = counter;
      sum->scales[sum->n_parts] = scale;
    }
  sum->n_parts++;
  sum->value = add_saturating (sum->value, scale_saturating (counter->value, scale));
  if (counter->has_rate)
    sum->rate += counter->rate * scale;
  else
    sum->all_rates = FALSE;
}

/* Adds the parts of src to dst (for event metrics, whose tiers add up). */
static void
sum_merge (Sum *dst, const Sum *src)
{
  if (src->n_parts == 0)
    return;
  if (dst->n_parts == 0)
    {
      *dst = *src;
      return;
    }
  for (guint i = 0; i < MIN (src->n_parts, NAMED_PARTS) && dst->n_parts + i < NAMED_PARTS; i++)
    {
      dst->parts[dst->n_parts + i] = src->parts[i];
      dst->scales[dst->n_parts + i] = src->scales[i];
    }
  dst->n_parts += src->n_parts;
  dst->value = add_saturating (dst->value, src->value);
  dst->rate += src->rate;
  dst->all_rates = dst->all_rates && src->all_rates;
}

static const char *
source_word (RtopCounterSource source)
{
  switch (source)
    {
    case RTOP_COUNTER_SOURCE_NETLINK:
      return "netlink";
    case RTOP_COUNTER_SOURCE_SYSFS_PORT:
    case RTOP_COUNTER_SOURCE_SYSFS_HW:
    case RTOP_COUNTER_SOURCE_SYSFS_DEVICE:
      return "sysfs";
    case RTOP_COUNTER_SOURCE_GPU:
      return "gpu";
    case RTOP_COUNTER_SOURCE_NETDEV:
    case RTOP_COUNTER_SOURCE_N:
    default:
      return "netdev";
    }
}

/* "netlink tx_bytes", "sysfs port_xmit_data x4", "netdev d0 tx_bytes",
 * "netlink ip4OutOctets + netlink ip6OutOctets". */
static char *
describe_sum (const Sum *sum, const char *netdev)
{
  /* Built every pass for every metric: plain appends, printf only for
   * the rare numbers. */
  GString *text = g_string_sized_new (64);
  guint named = MIN (sum->n_parts, NAMED_PARTS);

  for (guint i = 0; i < named; i++)
    {
      const RtopCounter *part = sum->parts[i];

      if (i > 0)
        g_string_append (text, " + ");
      g_string_append (text, source_word (part->source));
      if (part->source == RTOP_COUNTER_SOURCE_NETDEV && netdev != NULL)
        {
          g_string_append_c (text, ' ');
          g_string_append (text, netdev);
        }
      g_string_append_c (text, ' ');
      g_string_append (text, part->name);
      if (sum->scales[i] != 1)
        g_string_append_printf (text, " x%u", sum->scales[i]);
    }
  if (sum->n_parts > named)
    g_string_append_printf (text, " + %u more", sum->n_parts - named);
  return g_string_free (text, FALSE);
}

static void
clear_metrics (RtopPort *port)
{
  for (guint m = 0; m < RTOP_METRIC_N; m++)
    {
      g_free (port->metrics[m].source);
      memset (&port->metrics[m], 0, sizeof port->metrics[m]);
    }
}

/* One counter of a metric in a plan. */
typedef struct {
  guint index;               /* position in the port's counters */
  guint32 scale;             /* >= 1 */
  gboolean merged;           /* a generic-tier part added to the provider tier's */
} PlanPart;

typedef struct {
  gboolean present;
  guint first;               /* into parts */
  guint n;
  char *source;
} PlanMetric;

struct _RtopProviderPlan {
  guint n_counters;
  RtopCounterClass *klass;   /* per counter */
  PlanPart *parts;
  PlanMetric metrics[RTOP_METRIC_N];
};

/* The tier a metric is taken from, as rtop_provider_apply() always did:
 * event metrics (drops, errors, ...) add the provider's and the generic
 * rows; traffic takes the best tier that has the metric. */
static gboolean
plan_takes (RtopMetricId m, guint chosen, guint tier, gboolean *merged)
{
  *merged = FALSE;
  if (tier == chosen)
    return TRUE;
  if (!metric_is_traffic (m) && chosen == TIER_PROVIDER && tier == TIER_GENERIC)
    {
      *merged = TRUE;
      return TRUE;
    }
  return FALSE;
}

RtopProviderPlan *
rtop_provider_plan_new (const char *provider, GPtrArray *counters, const char *netdev)
{
  static const RtopMetricId error_parts[] = {
    RTOP_METRIC_LINK_ERRORS, RTOP_METRIC_TRANSPORT_ERRORS, RTOP_METRIC_OPERATION_ERRORS,
  };
  RtopProviderPlan *plan = g_new0 (RtopProviderPlan, 1);
  guint n = counters != NULL ? counters->len : 0;
  g_autofree const RtopProviderRule **rule_of = g_new0 (const RtopProviderRule *, MAX (n, 1));
  Sum sums[RTOP_METRIC_N][N_TIERS];
  guint chosen[RTOP_METRIC_N];
  g_autoptr(GArray) parts = g_array_new (FALSE, FALSE, sizeof (PlanPart));
  g_autoptr(GString) errors = g_string_new (NULL);

  memset (sums, 0, sizeof sums);
  plan->n_counters = n;
  plan->klass = g_new0 (RtopCounterClass, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      const RtopCounter *counter = g_ptr_array_index (counters, i);
      const RtopProviderRule *rule = find_rule (provider, counter->name, counter->source, FALSE);

      plan->klass[i] = rule != NULL ? rule->klass : classify_by_pattern (counter->name);
      /* Unknown counters stay raw: guessing a unit would make up a metric. */
      if (rule != NULL && rule->metric < RTOP_METRIC_N && rule->metric != RTOP_METRIC_ERRORS)
        {
          rule_of[i] = rule;
          sum_add (&sums[rule->metric][rule_tier (rule)], counter, rule->scale);
        }
    }

  for (guint m = 0; m < RTOP_METRIC_N; m++)
    {
      PlanMetric *pm = &plan->metrics[m];

      chosen[m] = N_TIERS;
      if (!metric_is_traffic (m))
        sum_merge (&sums[m][TIER_PROVIDER], &sums[m][TIER_GENERIC]);
      for (guint t = 0; t < N_TIERS && chosen[m] == N_TIERS; t++)
        if (sums[m][t].n_parts > 0)
          chosen[m] = t;
      if (chosen[m] == N_TIERS)
        continue;
      pm->present = TRUE;
      pm->source = describe_sum (&sums[m][chosen[m]], netdev);
      pm->first = parts->len;
      for (guint i = 0; i < n; i++)
        {
          PlanPart part = { i, 1, FALSE };

          if (rule_of[i] == NULL || rule_of[i]->metric != m ||
              !plan_takes (m, chosen[m], rule_tier (rule_of[i]), &part.merged))
            continue;
          part.scale = rule_of[i]->scale != 0 ? rule_of[i]->scale : 1;
          g_array_append_val (parts, part);
        }
      pm->n = parts->len - pm->first;
    }

  /* ERRORS is the sum of the three error metrics that are present. */
  for (guint i = 0; i < G_N_ELEMENTS (error_parts); i++)
    if (plan->metrics[error_parts[i]].present)
      {
        if (errors->len > 0)
          g_string_append (errors, " + ");
        g_string_append (errors, rtop_metric_id_to_string (error_parts[i]));
      }
  if (errors->len > 0)
    {
      plan->metrics[RTOP_METRIC_ERRORS].present = TRUE;
      plan->metrics[RTOP_METRIC_ERRORS].source = g_strdup (errors->str);
    }
  plan->parts = (PlanPart *) g_array_free (g_steal_pointer (&parts), FALSE);
  return plan;
}

void
rtop_provider_plan_free (RtopProviderPlan *plan)
{
  if (plan == NULL)
    return;
  for (guint m = 0; m < RTOP_METRIC_N; m++)
    g_free (plan->metrics[m].source);
  g_free (plan->klass);
  g_free (plan->parts);
  g_free (plan);
}

guint
rtop_provider_plan_get_n_counters (const RtopProviderPlan *plan)
{
  return plan->n_counters;
}

gboolean
rtop_provider_plan_get_part (const RtopProviderPlan *plan, RtopMetricId m, guint n,
                             guint *index, guint32 *scale)
{
  const PlanMetric *pm;

  g_return_val_if_fail (plan != NULL && m < RTOP_METRIC_N, FALSE);
  pm = &plan->metrics[m];
  if (!pm->present || m == RTOP_METRIC_ERRORS || n >= pm->n)
    return FALSE;
  *index = plan->parts[pm->first + n].index;
  *scale = plan->parts[pm->first + n].scale;
  return TRUE;
}

/* ERRORS is the sum of the three error metrics that are present. */
static void
run_errors_metric (RtopPort *port)
{
  static const RtopMetricId parts[] = {
    RTOP_METRIC_LINK_ERRORS, RTOP_METRIC_TRANSPORT_ERRORS, RTOP_METRIC_OPERATION_ERRORS,
  };
  RtopMetric *errors = &port->metrics[RTOP_METRIC_ERRORS];
  gboolean all_rates = TRUE;

  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      const RtopMetric *part = &port->metrics[parts[i]];

      if (!part->present)
        continue;
      errors->value = add_saturating (errors->value, part->value);
      errors->rate += part->rate;
      errors->saturated = errors->saturated || part->saturated;
      all_rates = all_rates && part->has_rate;
    }
  errors->has_rate = all_rates;
  if (!all_rates)
    errors->rate = 0;
}

void
rtop_provider_plan_run (const RtopProviderPlan *plan, RtopPort *port, gboolean borrow_sources)
{
  g_return_if_fail (plan != NULL && port != NULL);
  g_return_if_fail ((port->counters != NULL ? port->counters->len : 0) == plan->n_counters);

  if (borrow_sources)
    memset (port->metrics, 0, sizeof port->metrics);
  else
    clear_metrics (port);
  for (guint i = 0; i < plan->n_counters; i++)
    ((RtopCounter *) g_ptr_array_index (port->counters, i))->klass = plan->klass[i];

  for (guint m = 0; m < RTOP_METRIC_N; m++)
    {
      const PlanMetric *pm = &plan->metrics[m];
      RtopMetric *metric = &port->metrics[m];
      double rate = 0, merged_rate = 0;
      gboolean all_rates = TRUE, any_merged = FALSE;

      if (!pm->present)
        continue;
      metric->present = TRUE;
      metric->source = borrow_sources ? pm->source : g_strdup (pm->source);
      if (m == RTOP_METRIC_ERRORS)
        continue;     /* from the three error metrics, below */
      for (guint p = pm->first; p < pm->first + pm->n; p++)
        {
          const PlanPart *part = &plan->parts[p];
          const RtopCounter *counter = g_ptr_array_index (port->counters, part->index);

          metric->value = add_saturating (metric->value, scale_saturating (counter->value, part->scale));
          metric->saturated = metric->saturated || counter->saturated;
          if (!counter->has_rate)
            all_rates = FALSE;
          /* The same additions, in the same order, as the tiers' sums. */
          else if (part->merged)
            merged_rate += counter->rate * part->scale;
          else
            rate += counter->rate * part->scale;
          any_merged = any_merged || part->merged;
        }
      if (any_merged)
        rate += merged_rate;
      metric->has_rate = all_rates;
      metric->rate = all_rates ? rate : 0;
    }
  if (plan->metrics[RTOP_METRIC_ERRORS].present)
    run_errors_metric (port);
}

void
rtop_provider_apply (const char *provider, RtopPort *port)
{
  RtopProviderPlan *plan;

  g_return_if_fail (port != NULL);

  plan = rtop_provider_plan_new (provider, port->counters, port->netdev);
  rtop_provider_plan_run (plan, port, FALSE);
  rtop_provider_plan_free (plan);
}
