package tpcc

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMixHonoursWeights(t *testing.T) {
	for _, wt := range []Weights{
		DefaultWeights,
		{NewOrder: 10, Payment: 20, OrderStatus: 30, Delivery: 20, StockLevel: 20},
		{NewOrder: 100},
		{Payment: 50, StockLevel: 50},
	} {
		w := newTestWorkload(t, Options{Weights: wt})
		term := w.NewTerminal(0, rand.New(rand.NewPCG(9, 10)))
		const n = 100000
		counts := map[string]int{}
		window := map[string]int{}
		for i := range n {
			tx := term.Next()
			counts[tx]++
			window[tx]++
			if (i+1)%deckSize == 0 {
				// Every deck of 100 holds the exact percentages.
				requireCounts(t, wt, window, 1)
				clear(window)
			}
		}
		requireCounts(t, wt, counts, n/deckSize)
		// And the 4-sigma bound of a multinomial holds a fortiori.
		for tx, p := range weightMap(wt) {
			sigma := math.Sqrt(n * p * (1 - p))
			require.InDelta(t, n*p, counts[tx], 4*sigma+1e-9, tx)
		}
	}
}

func weightMap(wt Weights) map[string]float64 {
	return map[string]float64{
		TxNewOrder: float64(wt.NewOrder) / 100, TxPayment: float64(wt.Payment) / 100,
		TxOrderStatus: float64(wt.OrderStatus) / 100, TxDelivery: float64(wt.Delivery) / 100,
		TxStockLevel: float64(wt.StockLevel) / 100,
	}
}

func requireCounts(t *testing.T, wt Weights, got map[string]int, decks int) {
	t.Helper()
	require.Equal(t, wt.NewOrder*decks, got[TxNewOrder])
	require.Equal(t, wt.Payment*decks, got[TxPayment])
	require.Equal(t, wt.OrderStatus*decks, got[TxOrderStatus])
	require.Equal(t, wt.Delivery*decks, got[TxDelivery])
	require.Equal(t, wt.StockLevel*decks, got[TxStockLevel])
}

// The deck is shuffled: two terminals deal different sequences, and the
// order varies from one deck to the next.
func TestMixIsShuffled(t *testing.T) {
	w := newTestWorkload(t, Options{})
	a := w.NewTerminal(0, rand.New(rand.NewPCG(1, 1)))
	b := w.NewTerminal(1, rand.New(rand.NewPCG(2, 2)))
	var sa, sb []string
	for range 2 * deckSize {
		sa = append(sa, a.Next())
		sb = append(sb, b.Next())
	}
	require.NotEqual(t, sa, sb)
	require.NotEqual(t, sa[:deckSize], sa[deckSize:])
}

func TestWeightsValidate(t *testing.T) {
	for _, tc := range []struct {
		w   Weights
		err string
	}{
		{DefaultWeights, ""},
		{Weights{NewOrder: 45, Payment: 43, OrderStatus: 4, Delivery: 4, StockLevel: 5}, "sum to 101"},
		{Weights{NewOrder: 50, Payment: 50, OrderStatus: -1, Delivery: 1}, "orderStatusWeight=-1"},
		{Weights{NewOrder: 45}, "sum to 45"},
	} {
		err := tc.w.Validate()
		if tc.err == "" {
			require.NoError(t, err)
			continue
		}
		require.ErrorContains(t, err, tc.err)
	}
	_, err := New(Options{Weights: Weights{NewOrder: 1}})
	require.Error(t, err)
}

func TestKeyingAndThinkTimes(t *testing.T) {
	off := newTestWorkload(t, Options{}).NewTerminal(0, rand.New(rand.NewPCG(1, 2)))
	for _, tx := range txTypes {
		require.Zero(t, off.KeyingTime(tx), "off by default like BenchmarkSQL")
		require.Zero(t, off.ThinkTime(tx))
	}
	on := newTestWorkload(t, Options{KeyingTimes: true, ThinkTimes: true}).NewTerminal(0, rand.New(rand.NewPCG(1, 2)))
	require.Equal(t, 18.0, on.KeyingTime(TxNewOrder))
	require.Equal(t, 3.0, on.KeyingTime(TxPayment))
	require.Equal(t, 2.0, on.KeyingTime(TxStockLevel))
	const n = 50000
	sum := 0.0
	for range n {
		v := on.ThinkTime(TxNewOrder)
		require.GreaterOrEqual(t, v, 0.0)
		require.LessOrEqual(t, v, 120.0, "truncated at 10x the mean")
		sum += v
	}
	// Mean of the truncated exponential: 12 * (1 - e^-10) ~ 12; sd 12.
	require.InDelta(t, 12.0, sum/n, 4*12/math.Sqrt(n))

	half := newTestWorkload(t, Options{KeyingTimes: true, KeyingTimeMultiplier: 0.5}).NewTerminal(0, rand.New(rand.NewPCG(1, 2)))
	require.Equal(t, 9.0, half.KeyingTime(TxNewOrder))
}

func TestTxTypes(t *testing.T) {
	w := newTestWorkload(t, Options{})
	require.Equal(t, "tpcc", w.Name())
	require.Equal(t, []string{"new_order", "payment", "order_status", "delivery", "stock_level"}, w.TxTypes())
}
