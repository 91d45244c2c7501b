package importer

import "github.com/footdata/footballd/pkg/model"

// openfootballLeagues maps openfootball file names (en.1.json) to league
// codes. Codes outside the spec's appendix come with the description the
// importer registers as an editor-added league the first time it meets them.
var openfootballLeagues = map[string]model.League{
	"en.1":     {Code: "PL"},
	"en.2":     {Code: "ELC"},
	"en.3":     {Code: "EL1"},
	"en.4":     {Code: "EL2", Name: "League Two", Country: "England", Zone: "Europe/London"},
	"de.1":     {Code: "BL1"},
	"de.2":     {Code: "BL2"},
	"de.3":     {Code: "BL3"},
	"de.cup":   {Code: "DFB"},
	"es.1":     {Code: "PD"},
	"es.2":     {Code: "SD"},
	"it.1":     {Code: "SA"},
	"it.2":     {Code: "SB"},
	"fr.1":     {Code: "FL1"},
	"fr.2":     {Code: "FL2"},
	"nl.1":     {Code: "DED"},
	"pt.1":     {Code: "PPL"},
	"gr.1":     {Code: "GSL"},
	"uefa.cl":  {Code: "CL"},
	"worldcup": {Code: "WC"},
	"euro":     {Code: "EC"},
	"at.1":     {Code: "ABL", Name: "Bundesliga", Country: "Austria", Zone: "Europe/Vienna"},
	"at.2":     {Code: "AT2", Name: "2. Liga", Country: "Austria", Zone: "Europe/Vienna"},
	"at.cup":   {Code: "OFB", Name: "ÖFB-Cup", Country: "Austria", Zone: "Europe/Vienna"},
	"be.1":     {Code: "BJL", Name: "First Division A", Country: "Belgium", Zone: "Europe/Brussels"},
	"ch.1":     {Code: "SSL", Name: "Super League", Country: "Switzerland", Zone: "Europe/Zurich"},
	"ch.2":     {Code: "SCL", Name: "Challenge League", Country: "Switzerland", Zone: "Europe/Zurich"},
	"cz.1":     {Code: "CFL", Name: "First League", Country: "Czech Republic", Zone: "Europe/Prague"},
	"hu.1":     {Code: "NB1", Name: "NB I", Country: "Hungary", Zone: "Europe/Budapest"},
	"ru.1":     {Code: "RPL", Name: "Premier League", Country: "Russia", Zone: "Europe/Moscow"},
	"ru.2":     {Code: "RFN", Name: "First League", Country: "Russia", Zone: "Europe/Moscow"},
	"sco.1":    {Code: "SPL", Name: "Premiership", Country: "Scotland", Zone: "Europe/London"},
	"tr.1":     {Code: "TSL", Name: "Süper Lig", Country: "Turkey", Zone: "Europe/Istanbul"},
	"tr.2":     {Code: "TR2", Name: "1. Lig", Country: "Turkey", Zone: "Europe/Istanbul"},
	"ar.1":     {Code: "ARL", Name: "Liga Profesional", Country: "Argentina", Zone: "America/Argentina/Buenos_Aires"},
	"br.1":     {Code: "BSA", Name: "Série A", Country: "Brazil", Zone: "America/Sao_Paulo"},
	"br.2":     {Code: "BSB", Name: "Série B", Country: "Brazil", Zone: "America/Sao_Paulo"},
	"mx.1":     {Code: "LMX", Name: "Liga MX", Country: "Mexico", Zone: "America/Mexico_City"},
	"au.1":     {Code: "ALM", Name: "A-League", Country: "Australia", Zone: "Australia/Sydney"},
	"cn.1":     {Code: "CSL", Name: "Super League", Country: "China", Zone: "Asia/Shanghai"},
	"jp.1":     {Code: "JJL", Name: "J1 League", Country: "Japan", Zone: "Asia/Tokyo"},
	"co.1":     {Code: "COL", Name: "Primera A", Country: "Colombia", Zone: "America/Bogota"},
	"mls":      {Code: "MLS", Name: "Major League Soccer", Country: "USA", Zone: "America/New_York"},
	"copa.l":   {Code: "CLI", Name: "Copa Libertadores", Country: "South America", Zone: "America/Sao_Paulo"},
	"dz.1":     {Code: "DZ1", Name: "Ligue 1", Country: "Algeria", Zone: "Africa/Algiers"},
	"eg.1":     {Code: "EPL", Name: "Premier League", Country: "Egypt", Zone: "Africa/Cairo"},
	"ma.1":     {Code: "BOT", Name: "Botola Pro", Country: "Morocco", Zone: "Africa/Casablanca"},
}

// awardedWinners holds awarded results whose stored score does not say who
// got the points (a 0-0 "awarded" line), keyed by league, season and the
// normalised names of the home and away teams.
// Facts from the published tables.
var awardedWinners = map[string]model.Side{
	// Ligue 1 2016-17: the match was abandoned; Lyon were awarded the win.
	"FL1/2016/bastia/olympique lyonnais": model.Away,
}
