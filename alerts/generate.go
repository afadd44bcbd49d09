package alerts

//go:generate sh -c "cd .. && go run ./alerts/gen"
