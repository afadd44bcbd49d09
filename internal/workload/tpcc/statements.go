package tpcc

import "strings"

type stmtKind int

const (
	kindRead stmtKind = iota
	kindWrite
)

type stmtID int

// maxOrderLines is the largest O_OL_CNT (spec 2.4.1.3).
const maxOrderLines = 15

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

const (
	stNODistrict stmtID = iota
	stNODistrictUpdate
	stNOCustomer
	stNOOrder
	stNONewOrder
	stNOItems
	stNOStocks
	stPayWarehouseUpdate
	stPayWarehouse
	stPayDistrictUpdate
	stPayDistrict
	stCustomerByName
	stPayCustomer
	stPayCustomerData
	stPayCustomerUpdate
	stPayCustomerUpdateBC
	stPayHistory
	stOSCustomer
	stOSOrder
	stOSOrderLines
	stDelNewOrder
	stDelNewOrderDelete
	stDelOrder
	stDelOrderUpdate
	stDelOrderLineUpdate
	stDelOrderLineSum
	stDelCustomerUpdate
	stSLDistrict
	stSLCount
	stKeepNextOrder
	stKeepOrderLineDelete
	stKeepOrderDelete
	stKeepHistoryDelete
	numStmts
)

// statements are the transaction profiles' SQL, prepared once per terminal
// and connection. Locking reads (FOR UPDATE) are where the spec's level-3
// isolation needs them under InnoDB's REPEATABLE-READ: the district row that
// hands out order ids, the stock rows, the paying customer, and the oldest
// new order a Delivery takes.
var statements = [numStmts]struct {
	name string
	kind stmtKind
	sql  string
}{
	stNODistrict:       {"new_order.district", kindRead, "SELECT d_tax, d_next_o_id FROM bmsql_district WHERE d_w_id = ? AND d_id = ? FOR UPDATE"},
	stNODistrictUpdate: {"new_order.district_update", kindWrite, "UPDATE bmsql_district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?"},
	stNOCustomer: {"new_order.customer", kindRead, "SELECT c_discount, c_last, c_credit, w_tax FROM bmsql_customer JOIN bmsql_warehouse ON w_id = c_w_id " +
		"WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"},
	stNOOrder: {"new_order.insert_order", kindWrite, "INSERT INTO bmsql_oorder (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) " +
		"VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, ?, ?)"},
	stNONewOrder: {"new_order.insert_new_order", kindWrite, "INSERT INTO bmsql_new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)"},
	// Items and stock rows of an order are read with one IN list each,
	// padded to maxOrderLines by repeating the last id, so one prepared
	// statement serves every order size. The IN list is a range scan in key
	// order, so stock rows are locked in (s_w_id, s_i_id) order.
	stNOItems: {"new_order.items", kindRead, "SELECT i_id, i_price, i_name, i_data FROM bmsql_item WHERE i_id IN (" + placeholders(maxOrderLines) + ")"},
	stNOStocks: {"new_order.stocks", kindRead, "SELECT s_i_id, s_quantity, s_data, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, " +
		"s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10 FROM bmsql_stock WHERE s_w_id = ? AND s_i_id IN (" + placeholders(maxOrderLines) + ") " +
		"ORDER BY s_i_id FOR UPDATE"},

	stPayWarehouseUpdate: {"payment.warehouse_update", kindWrite, "UPDATE bmsql_warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?"},
	stPayWarehouse: {"payment.warehouse", kindRead, "SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip " +
		"FROM bmsql_warehouse WHERE w_id = ?"},
	stPayDistrictUpdate: {"payment.district_update", kindWrite, "UPDATE bmsql_district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?"},
	stPayDistrict: {"payment.district", kindRead, "SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip " +
		"FROM bmsql_district WHERE d_w_id = ? AND d_id = ?"},
	stCustomerByName: {"customer_by_name", kindRead, "SELECT c_id FROM bmsql_customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first"},
	stPayCustomer: {"payment.customer", kindRead, "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, " +
		"c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance FROM bmsql_customer " +
		"WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE"},
	stPayCustomerData: {"payment.customer_data", kindRead, "SELECT c_data FROM bmsql_customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"},
	stPayCustomerUpdate: {"payment.customer_update", kindWrite, "UPDATE bmsql_customer SET c_balance = c_balance - ?, " +
		"c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"},
	stPayCustomerUpdateBC: {"payment.customer_update_bc", kindWrite, "UPDATE bmsql_customer SET c_balance = c_balance - ?, " +
		"c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"},
	stPayHistory: {"payment.insert_history", kindWrite, "INSERT INTO bmsql_history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, " +
		"h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, CURRENT_TIMESTAMP, ?, ?)"},

	stOSCustomer: {"order_status.customer", kindRead, "SELECT c_first, c_middle, c_last, c_balance FROM bmsql_customer " +
		"WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"},
	stOSOrder: {"order_status.order", kindRead, "SELECT o_id, o_entry_d, o_carrier_id FROM bmsql_oorder " +
		"WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1"},
	stOSOrderLines: {"order_status.order_lines", kindRead, "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d " +
		"FROM bmsql_order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"},

	stDelNewOrder: {"delivery.new_order", kindRead, "SELECT no_o_id FROM bmsql_new_order WHERE no_w_id = ? AND no_d_id = ? " +
		"ORDER BY no_o_id ASC LIMIT 1 FOR UPDATE"},
	stDelNewOrderDelete:  {"delivery.delete_new_order", kindWrite, "DELETE FROM bmsql_new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?"},
	stDelOrder:           {"delivery.order", kindRead, "SELECT o_c_id FROM bmsql_oorder WHERE o_w_id = ? AND o_d_id = ? AND o_id = ? FOR UPDATE"},
	stDelOrderUpdate:     {"delivery.order_update", kindWrite, "UPDATE bmsql_oorder SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?"},
	stDelOrderLineUpdate: {"delivery.order_line_update", kindWrite, "UPDATE bmsql_order_line SET ol_delivery_d = CURRENT_TIMESTAMP WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"},
	stDelOrderLineSum:    {"delivery.order_line_sum", kindRead, "SELECT SUM(ol_amount) FROM bmsql_order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"},
	stDelCustomerUpdate: {"delivery.customer_update", kindWrite, "UPDATE bmsql_customer SET c_balance = c_balance + ?, " +
		"c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"},

	stSLDistrict: {"stock_level.district", kindRead, "SELECT d_next_o_id FROM bmsql_district WHERE d_w_id = ? AND d_id = ?"},
	stSLCount: {"stock_level.count", kindRead, "SELECT COUNT(DISTINCT s_i_id) FROM bmsql_order_line JOIN bmsql_stock " +
		"ON s_w_id = ol_w_id AND s_i_id = ol_i_id WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id >= ? AND ol_o_id < ? AND s_quantity < ?"},

	// Options.KeepSize (keepsize.go): inside a Delivery, after it. The
	// deletes are range deletes on each table's primary key, at its oldest
	// end, away from the New-Orders and Payments that insert at the newest.
	stKeepNextOrder:       {"keep_size.district", kindRead, "SELECT d_next_o_id FROM bmsql_district WHERE d_w_id = ? AND d_id = ?"},
	stKeepOrderLineDelete: {"keep_size.delete_order_lines", kindWrite, "DELETE FROM bmsql_order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ?"},
	stKeepOrderDelete:     {"keep_size.delete_orders", kindWrite, "DELETE FROM bmsql_oorder WHERE o_w_id = ? AND o_d_id = ? AND o_id < ?"},
	stKeepHistoryDelete:   {"keep_size.delete_history", kindWrite, "DELETE FROM bmsql_history ORDER BY hist_id LIMIT ?"},
}
