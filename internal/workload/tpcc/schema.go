package tpcc

// The BenchmarkSQL 5.0 schema as its MySQL forks create it: primary keys and
// the two secondary indexes inline (loading into indexed tables is what those
// forks do), hist_id as an auto-increment key, no foreign keys. Timestamps
// are declared NULL DEFAULT NULL so no server setting turns the first one
// into an auto-updating column (that would rewrite o_entry_d on Delivery).
var createTables = []string{
	`CREATE TABLE IF NOT EXISTS bmsql_config (
  cfg_name  varchar(30) NOT NULL PRIMARY KEY,
  cfg_value varchar(50)
) ENGINE=InnoDB`,
	`CREATE TABLE IF NOT EXISTS bmsql_warehouse (
  w_id       integer NOT NULL,
  w_ytd      decimal(12,2),
  w_tax      decimal(4,4),
  w_name     varchar(10),
  w_street_1 varchar(20),
  w_street_2 varchar(20),
  w_city     varchar(20),
  w_state    char(2),
  w_zip      char(9),
  PRIMARY KEY (w_id)
) ENGINE=InnoDB`,
	`CREATE TABLE IF NOT EXISTS bmsql_district (
  d_w_id      integer NOT NULL,
  d_id        integer NOT NULL,
  d_ytd       decimal(12,2),
  d_tax       decimal(4,4),
  d_next_o_id integer,
  d_name      varchar(10),
  d_street_1  varchar(20),
  d_street_2  varchar(20),
  d_city      varchar(20),
  d_state     char(2),
  d_zip       char(9),
  PRIMARY KEY (d_w_id, d_id)
) ENGINE=InnoDB`,
	`CREATE TABLE IF NOT EXISTS bmsql_customer (
  c_w_id         integer NOT NULL,
  c_d_id         integer NOT NULL,
  c_id           integer NOT NULL,
  c_discount     decimal(4,4),
  c_credit       char(2),
  c_last         varchar(16),
  c_first        varchar(16),
  c_credit_lim   decimal(12,2),
  c_balance      decimal(12,2),
  c_ytd_payment  decimal(12,2),
  c_payment_cnt  integer,
  c_delivery_cnt integer,
  c_street_1     varchar(20),
  c_street_2     varchar(20),
  c_city         varchar(20),
  c_state        char(2),
  c_zip          char(9),
  c_phone        char(16),
  c_since        timestamp NULL DEFAULT NULL,
  c_middle       char(2),
  c_data         varchar(500),
  PRIMARY KEY (c_w_id, c_d_id, c_id),
  KEY bmsql_customer_idx1 (c_w_id, c_d_id, c_last, c_first)
) ENGINE=InnoDB`,
	`CREATE TABLE IF NOT EXISTS bmsql_history (
  hist_id  integer NOT NULL AUTO_INCREMENT,
  h_c_id   integer,
  h_c_d_id integer,
  h_c_w_id integer,
  h_d_id   integer,
  h_w_id   integer,
  h_date   timestamp NULL DEFAULT NULL,
  h_amount decimal(6,2),
  h_data   varchar(24),
  PRIMARY KEY (hist_id)
) ENGINE=InnoDB`,
	`CREATE TABLE IF NOT EXISTS bmsql_new_order (
  no_w_id integer NOT NULL,
  no_d_id integer NOT NULL,
  no_o_id integer NOT NULL,
  PRIMARY KEY (no_w_id, no_d_id, no_o_id)
) ENGINE=InnoDB`,
	`CREATE TABLE IF NOT EXISTS bmsql_oorder (
  o_w_id       integer NOT NULL,
  o_d_id       integer NOT NULL,
  o_id         integer NOT NULL,
  o_c_id       integer,
  o_carrier_id integer,
  o_ol_cnt     integer,
  o_all_local  integer,
  o_entry_d    timestamp NULL DEFAULT NULL,
  PRIMARY KEY (o_w_id, o_d_id, o_id),
  UNIQUE KEY bmsql_oorder_idx1 (o_w_id, o_d_id, o_c_id, o_id)
) ENGINE=InnoDB`,
	`CREATE TABLE IF NOT EXISTS bmsql_order_line (
  ol_w_id        integer NOT NULL,
  ol_d_id        integer NOT NULL,
  ol_o_id        integer NOT NULL,
  ol_number      integer NOT NULL,
  ol_i_id        integer NOT NULL,
  ol_delivery_d  timestamp NULL DEFAULT NULL,
  ol_amount      decimal(6,2),
  ol_supply_w_id integer,
  ol_quantity    integer,
  ol_dist_info   char(24),
  PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)
) ENGINE=InnoDB`,
	`CREATE TABLE IF NOT EXISTS bmsql_item (
  i_id    integer NOT NULL,
  i_name  varchar(24),
  i_price decimal(5,2),
  i_data  varchar(50),
  i_im_id integer,
  PRIMARY KEY (i_id)
) ENGINE=InnoDB`,
	`CREATE TABLE IF NOT EXISTS bmsql_stock (
  s_w_id       integer NOT NULL,
  s_i_id       integer NOT NULL,
  s_quantity   integer,
  s_ytd        integer,
  s_order_cnt  integer,
  s_remote_cnt integer,
  s_data       varchar(50),
  s_dist_01    char(24),
  s_dist_02    char(24),
  s_dist_03    char(24),
  s_dist_04    char(24),
  s_dist_05    char(24),
  s_dist_06    char(24),
  s_dist_07    char(24),
  s_dist_08    char(24),
  s_dist_09    char(24),
  s_dist_10    char(24),
  PRIMARY KEY (s_w_id, s_i_id)
) ENGINE=InnoDB`,
}

// Tables lists the ten tables Prepare creates, in creation order.
var Tables = []string{
	"bmsql_config", "bmsql_warehouse", "bmsql_district", "bmsql_customer",
	"bmsql_history", "bmsql_new_order", "bmsql_oorder", "bmsql_order_line",
	"bmsql_item", "bmsql_stock",
}

// warehouseColumn names each per-warehouse table's warehouse column, for
// wiping a half-loaded warehouse before it is loaded again.
var warehouseColumn = []struct{ table, column string }{
	{"bmsql_warehouse", "w_id"},
	{"bmsql_district", "d_w_id"},
	{"bmsql_customer", "c_w_id"},
	{"bmsql_history", "h_w_id"},
	{"bmsql_new_order", "no_w_id"},
	{"bmsql_oorder", "o_w_id"},
	{"bmsql_order_line", "ol_w_id"},
	{"bmsql_stock", "s_w_id"},
}
